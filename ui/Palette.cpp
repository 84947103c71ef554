#include "Palette.h"

#include <array>

namespace ckpt::ui::palette {

QColor plainFill() { return QColor(0xe8, 0xec, 0xf2); }
QColor checkpointFill() { return QColor(0xe6, 0x9f, 0x00); }
QColor checkpointBorder() { return QColor(0x7a, 0x4a, 0x00); }

QColor segmentFill(int segment)
{
    static const std::array<QColor, 8> fills{
        QColor(0xa6, 0xce, 0xe3), QColor(0xb2, 0xdf, 0x8a), QColor(0xca, 0xb2, 0xd6), QColor(0xfb, 0x9a, 0x99),
        QColor(0x8d, 0xd3, 0xc7), QColor(0xff, 0xff, 0xb3), QColor(0xbe, 0xba, 0xda), QColor(0xfc, 0xcd, 0xe5),
    };
    return fills[static_cast<std::size_t>(segment < 0 ? 0 : segment) % fills.size()];
}

QColor nonIndependentBorder() { return QColor(0xd5, 0x5e, 0x00); }
QColor highlight() { return QColor(0x00, 0x72, 0xb2); }
QColor searchMatch() { return QColor(0xcc, 0x00, 0x99); }
QColor edge() { return QColor(0x55, 0x5b, 0x66); }
QColor text() { return QColor(0x10, 0x10, 0x10); }

QColor linearFill() { return QColor(0x8d, 0xc6, 0xe8); }
QColor branchFill() { return QColor(0x9f, 0xd8, 0x8a); }
QColor complicateFill() { return QColor(0xf4, 0xa5, 0x82); }
QColor leafFill() { return QColor(0xdd, 0xdd, 0xdd); }

QString swatch(const QColor& colour, const QString& label)
{
    return QStringLiteral("<span style='background:%1; border:1px solid #555'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
        .arg(colour.name(), label.toHtmlEscaped());
}

QColor seriesColour(int i)
{
    static const QColor colours[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73),
                                     QColor(0xcc, 0x79, 0xa7), QColor(0x56, 0xb4, 0xe9), QColor(0xe6, 0x9f, 0x00)};
    return colours[std::size_t(i) % std::size(colours)];
}

}  // namespace ckpt::ui::palette
