#include "VertexTableModel.h"

#include "util/Units.h"

#include <QStringList>

namespace ckpt::ui {

VertexTableModel::VertexTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void VertexTableModel::setGraph(std::shared_ptr<const Graph> graph)
{
    beginResetModel();
    m_graph = std::move(graph);
    endResetModel();
}

int VertexTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_graph ? 0 : m_graph->vertexCount();
}

int VertexTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VertexTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_graph)
        return {};
    const Vertex& v = m_graph->vertex(index.row());
    if (role == Qt::TextAlignmentRole && (index.column() == Bytes || index.column() == Compute))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == RawValueRole && index.column() == Bytes)
        return QVariant::fromValue<qlonglong>(v.bytes);
    if (role == Qt::ToolTipRole && index.column() == Bytes)
        return tr("%L1 bytes").arg(v.bytes);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Id:
        return QString::fromStdString(v.id) + (v.isVirtual ? tr(" (virtual)") : QString());
    case Name:
        return QString::fromStdString(v.name);
    case Op:
        return QString::fromStdString(v.backward ? v.op + " (backward)" : v.op);
    case Bytes:
        return QString::fromStdString(formatBytes(v.bytes));
    case Shape: {
        if (!v.shape)
            return {};
        QStringList dims;
        for (auto d : *v.shape)
            dims << QString::number(d);
        return dims.join(QStringLiteral("×"));
    }
    case DType:
        return QString::fromStdString(v.dtype);
    case Compute:
        return v.compute ? QVariant(*v.compute) : QVariant();
    case Module:
        return QString::fromStdString(v.module);
    }
    return {};
}

QVariant VertexTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section;
    static const char* names[] = {"Id", "Name", "Op", "Bytes", "Shape", "DType", "Compute", "Module"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace ckpt::ui
