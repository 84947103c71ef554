#pragma once
// Help > About: the version, the license and the papers whose algorithms the app implements.
#include <QString>

namespace ckpt::ui {

QString aboutHtml(const QString& version);

}  // namespace ckpt::ui
