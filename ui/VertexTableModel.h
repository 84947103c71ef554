#pragma once
// The vertices of a graph as a table: id, name, op, bytes, shape, dtype, compute, module.
#include "graph/Graph.h"

#include <QAbstractTableModel>

#include <memory>

namespace ckpt::ui {

class VertexTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Name, Op, Bytes, Shape, DType, Compute, Module, ColumnCount };
    // Bytes as a number (for sorting and tests) under this role; DisplayRole shows KiB/MiB.
    static constexpr int RawValueRole = Qt::UserRole + 1;

    explicit VertexTableModel(QObject* parent = nullptr);
    void setGraph(std::shared_ptr<const Graph> graph);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Graph> m_graph;
};

}  // namespace ckpt::ui
