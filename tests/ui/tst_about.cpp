// Help > About: the app's version, the license of the LICENSE file, and the papers it implements.
#include "AboutText.h"
#include "MainWindow.h"
#include "TestData.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTimer>
#include <QtTest>

using namespace ckpt;
using namespace ckpt::ui;

class AboutTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("CheckpointExplorerTests");
    }

    void namesVersionLicenseAndPapers()
    {
        const QString text = aboutHtml(QStringLiteral("9.8.7"));
        QVERIFY(text.contains(QLatin1String("9.8.7")));
        QFile license(test::sourcePath(QStringLiteral("LICENSE")));
        QVERIFY(license.open(QIODevice::ReadOnly));
        const QString licenseName = QString::fromUtf8(license.readLine()).trimmed();  // "MIT License"
        QVERIFY(!licenseName.isEmpty());
        QVERIFY2(text.contains(licenseName), qPrintable(licenseName));
        for (const char* paper : {"Optimal Gradient Checkpoint Search for Arbitrary Computation Graphs",
                                  "Checkmate: Breaking the Memory Wall", "GPU Memory Usage Optimization for Backward Propagation"})
            QVERIFY2(text.contains(QLatin1String(paper)), paper);
    }

    void helpMenuShowsIt()
    {
        QApplication::setApplicationVersion(QStringLiteral("9.8.7"));
        MainWindow window;
        auto* about = window.findChild<QAction*>(QStringLiteral("aboutAction"));
        QVERIFY(about);
        QString shown;
        QTimer closer;  // the box is modal: close it from inside its event loop once it is up
        connect(&closer, &QTimer::timeout, &window, [&] {
            if (auto* box = window.findChild<QMessageBox*>(); box && box->isVisible()) {
                shown = box->text();
                box->accept();
                closer.stop();
            }
        });
        closer.start(20);
        about->trigger();
        QCOMPARE(shown, aboutHtml(QStringLiteral("9.8.7")));
    }
};

QTEST_MAIN(AboutTest)
#include "tst_about.moc"
