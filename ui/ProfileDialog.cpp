#include "ProfileDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace ckpt::ui {

namespace {

QString settingsKey(const QString& model)
{
    // QSettings keys treat '/' as groups; the hex of the absolute path is a flat, safe key.
    return QStringLiteral("profile/inputShape/") + QString::fromLatin1(QFileInfo(model).absoluteFilePath().toUtf8().toHex());
}

}  // namespace

ProfileDialog::ProfileDialog(QWidget* parent)
    : QDialog(parent), m_source(new QComboBox(this)), m_python(new QLineEdit(this)), m_model(new QLineEdit(this)), m_input(new QLineEdit(this)), m_device(new QComboBox(this)),
      m_iterations(new QSpinBox(this))
{
    setWindowTitle(tr("Profile the current plan"));
    m_source->setObjectName(QStringLiteral("profileSource"));
    m_source->addItems({tr("TorchScript file (LibTorch)"), tr("Python model (FILE.py:FACTORY)")});
    m_python->setObjectName(QStringLiteral("profilePython"));
    m_python->setPlaceholderText(QStringLiteral("python3"));
    m_model->setObjectName(QStringLiteral("profileModel"));
    m_input->setObjectName(QStringLiteral("profileInput"));
    m_input->setPlaceholderText(QStringLiteral("1x3x224x224"));
    m_device->addItems({QStringLiteral("cpu"), QStringLiteral("cuda")});
    m_iterations->setRange(1, 100);
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const bool python = m_source->currentIndex() == 1;
        const QString path = QFileDialog::getOpenFileName(
            this, python ? tr("Python file with a model factory") : tr("TorchScript model"), m_model->text().section(QLatin1Char(':'), 0, 0),
            python ? tr("Python (*.py);;All files (*)") : tr("TorchScript (*.pt *.pth);;All files (*)"));
        if (!path.isEmpty())
            m_model->setText(python ? path + QStringLiteral(":") : path);
    });
    connect(m_model, &QLineEdit::textChanged, this, [this](const QString& model) {
        if (const QString shape = rememberedInputShape(model); !shape.isEmpty())
            m_input->setText(shape);
    });
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(browse);
    auto* form = new QFormLayout(this);
    form->addRow(tr("Source:"), m_source);
    form->addRow(tr("Python interpreter:"), m_python);
    form->addRow(tr("Model:"), modelRow);
    // Room for a language model's inputs by keyword (input_ids=8x512:int64:50257 attention_mask=…).
    m_input->setMinimumWidth(fontMetrics().averageCharWidth() * 64);
    m_input->setToolTip(tr("One shape per forward argument, separated by spaces: SHAPE[:DTYPE[:HIGH]], "
                           "or NAME=SHAPE[:DTYPE[:HIGH]] for a Python model's keyword argument"));
    form->addRow(tr("Inputs:"), m_input);
    form->addRow(tr("Device:"), m_device);
    form->addRow(tr("Iterations:"), m_iterations);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    const QSettings settings;
    m_model->setText(settings.value(QStringLiteral("profile/lastModel")).toString());
    m_python->setText(settings.value(QStringLiteral("profile/python"), QStringLiteral("python3")).toString());
    m_source->setCurrentIndex(request().isPythonModel() ? 1 : 0);
    connect(m_source, &QComboBox::currentIndexChanged, this, &ProfileDialog::sourceChanged);
    sourceChanged();
    m_device->setCurrentText(settings.value(QStringLiteral("profile/device"), QStringLiteral("cpu")).toString());
    m_iterations->setValue(settings.value(QStringLiteral("profile/iterations"), 3).toInt());
}

void ProfileDialog::sourceChanged()
{
    const bool python = m_source->currentIndex() == 1;
    m_python->setEnabled(python);
    m_model->setPlaceholderText(python ? QStringLiteral("model.py:make_model") : QStringLiteral("model.pt"));
    m_input->setPlaceholderText(python ? QStringLiteral("8x128:int64:50257 or input_ids=8x128:int64:50257 (one per argument)")
                                       : QStringLiteral("1x3x224x224"));
}

ProfileRequest ProfileDialog::request() const
{
    const QString python = m_python->text().trimmed();
    return {m_model->text(), m_input->text().trimmed(), m_device->currentText(), m_iterations->value(),
            python.isEmpty() ? QStringLiteral("python3") : python};
}

void ProfileDialog::remember() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("profile/lastModel"), m_model->text());
    settings.setValue(QStringLiteral("profile/device"), m_device->currentText());
    settings.setValue(QStringLiteral("profile/iterations"), m_iterations->value());
    settings.setValue(QStringLiteral("profile/python"), m_python->text().trimmed());
    rememberInputShape(m_model->text(), m_input->text().trimmed());
}

QString ProfileDialog::rememberedInputShape(const QString& model)
{
    return QSettings().value(settingsKey(model)).toString();
}

void ProfileDialog::rememberInputShape(const QString& model, const QString& shape)
{
    QSettings().setValue(settingsKey(model), shape);
}

}  // namespace ckpt::ui
