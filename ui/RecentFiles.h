#pragma once
// Recently opened graph files, most recent first, kept in QSettings.
#include <QStringList>

namespace ckpt::ui {

class RecentFiles {
public:
    static constexpr int MaxEntries = 10;
    static QStringList list();
    static void add(const QString& path);
    static void remove(const QString& path);
};

}  // namespace ckpt::ui
