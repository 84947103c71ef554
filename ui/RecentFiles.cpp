#include "RecentFiles.h"

#include <QFileInfo>
#include <QSettings>

namespace ckpt::ui {

namespace {
const char* const kKey = "recentFiles";
}

QStringList RecentFiles::list()
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString& path)
{
    // Resources (":/examples/...") are always available through File > Examples.
    if (path.startsWith(QLatin1Char(':')))
        return;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = list();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > MaxEntries)
        files.removeLast();
    QSettings().setValue(kKey, files);
}

void RecentFiles::remove(const QString& path)
{
    QStringList files = list();
    files.removeAll(path);
    QSettings().setValue(kKey, files);
}

}  // namespace ckpt::ui
