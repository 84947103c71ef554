#pragma once
#include <QMainWindow>

class QLabel;
class QMenu;
class QTableView;

namespace ckpt::ui {

class GraphDocument;
class VertexTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Opens a graph file (or ":/examples/..." resource); a failure is shown in a dialog that
    // names the file and the problem, and the current graph stays.
    bool openFile(const QString& path);

    GraphDocument* document() const { return m_document; }
    QTableView* vertexTable() const { return m_vertexTable; }
    QString statusText() const;

private:
    void createMenus();
    void rebuildRecentMenu();
    void onGraphChanged();
    void showError(const QString& title, const QString& message);

    GraphDocument* m_document;
    VertexTableModel* m_vertexModel;
    QTableView* m_vertexTable;
    QLabel* m_status;
    QMenu* m_recentMenu = nullptr;
};

}  // namespace ckpt::ui
