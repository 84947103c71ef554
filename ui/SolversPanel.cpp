#include "SolversPanel.h"

#include "BackgroundTask.h"
#include "solvers/Comparison.h"
#include "solvers/SolverRegistry.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <new>

namespace ckpt::ui {

SolversPanel::SolversPanel(QWidget* parent)
    : QWidget(parent),
      m_solvers(new QListWidget(this)),
      m_optionsBox(new QGroupBox(tr("Options"), this)),
      m_optionsForm(new QFormLayout(m_optionsBox)),
      m_run(new QPushButton(tr("Run"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)),
      m_model(new ComparisonModel(this)),
      m_table(new QTableView(this)),
      m_task(new BackgroundTask(this))
{
    setObjectName(QStringLiteral("solversPanel"));
    for (const Solver* s : allSolvers()) {
        auto* item = new QListWidgetItem(QString::fromStdString(s->name()), m_solvers);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(s->fast() ? Qt::Checked : Qt::Unchecked);  // slow ones on request
        item->setToolTip(QString::fromStdString(s->description()));
        for (const OptionSpec& o : s->options())
            m_options[s->name()][o.name] = o.defaultValue;
    }
    m_solvers->setMinimumHeight(fontMetrics().height() * 4);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_cancel->setEnabled(false);
    m_status->setWordWrap(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_solvers, 1);
    top->addWidget(m_optionsBox, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    // Choosing solvers above, the comparison below, split so that the table gets the height.
    auto* chooser = new QWidget(this);
    auto* chooserColumn = new QVBoxLayout(chooser);
    chooserColumn->setContentsMargins(0, 0, 0, 0);
    chooserColumn->addLayout(top, 1);
    chooserColumn->addLayout(buttons);
    chooserColumn->addWidget(m_status);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("solversSplit"));
    split->addWidget(chooser);
    split->addWidget(m_table);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({1, 1000});  // the chooser at its minimum, the rest to the table
    auto* column = new QVBoxLayout(this);
    column->addWidget(split);

    connect(m_solvers, &QListWidget::currentTextChanged, this, &SolversPanel::showOptions);
    connect(m_run, &QPushButton::clicked, this, &SolversPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &SolversPanel::cancel);
    connect(m_task, &BackgroundTask::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_task, &BackgroundTask::finished, this, &SolversPanel::onFinished);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (!m_quiet)
            Q_EMIT planSelected(currentPlan());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (!m_quiet)
            Q_EMIT selectedPlansChanged();
    });
    if (m_solvers->count() > 0)
        m_solvers->setCurrentRow(0);
    m_run->setEnabled(false);
}

void SolversPanel::setGraph(std::shared_ptr<const Graph> graph)
{
    m_task->cancel();
    m_graph = std::move(graph);
    m_model->setRuns({});
    m_run->setEnabled(m_graph != nullptr);
    m_status->clear();
    Q_EMIT planSelected(nullptr);
}

void SolversPanel::setSelectedSolvers(const QStringList& names)
{
    for (int i = 0; i < m_solvers->count(); ++i)
        m_solvers->item(i)->setCheckState(names.contains(m_solvers->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
}

QStringList SolversPanel::selectedSolvers() const
{
    QStringList names;
    for (int i = 0; i < m_solvers->count(); ++i)
        if (m_solvers->item(i)->checkState() == Qt::Checked)
            names << m_solvers->item(i)->text();
    return names;
}

void SolversPanel::setOption(const QString& solver, const QString& option, const QString& value)
{
    m_options[solver.toStdString()][option.toStdString()] = value.toStdString();
    if (m_solvers->currentItem() && m_solvers->currentItem()->text() == solver)
        showOptions(solver);
}

void SolversPanel::showOptions(const QString& solverName)
{
    while (m_optionsForm->rowCount() > 0)
        m_optionsForm->removeRow(0);
    const Solver* solver = findSolver(solverName.toStdString());
    if (!solver)
        return;
    m_optionsBox->setTitle(tr("Options: %1").arg(solverName));
    if (solver->options().empty())
        m_optionsForm->addRow(new QLabel(tr("(none)"), m_optionsBox));
    for (const OptionSpec& o : solver->options()) {
        auto* edit = new QLineEdit(QString::fromStdString(m_options[solver->name()][o.name]), m_optionsBox);
        edit->setToolTip(QString::fromStdString(o.description));
        const std::string solverKey = solver->name(), optionKey = o.name;
        connect(edit, &QLineEdit::textEdited, this,
                [this, solverKey, optionKey](const QString& v) { m_options[solverKey][optionKey] = v.toStdString(); });
        m_optionsForm->addRow(QString::fromStdString(o.name), edit);
    }
}

void SolversPanel::run()
{
    if (!m_graph)
        return;
    struct Request {
        std::string solver;
        std::map<std::string, std::string> options;
    };
    std::vector<Request> requests;
    for (const QString& name : selectedSolvers())
        requests.push_back({name.toStdString(), m_options[name.toStdString()]});
    auto results = std::make_shared<std::vector<SolverRun>>();
    m_results = results;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setValue(0);
    m_status->setText(tr("Running %1 solver(s)…").arg(requests.size()));
    auto graph = m_graph;
    m_task->start([graph, requests, results](const std::atomic<bool>& cancel, const BackgroundTask::Progress& progress) {
        const double n = double(std::max<std::size_t>(1, requests.size()));
        for (std::size_t i = 0; i < requests.size() && !cancel.load(); ++i) {
            SolverOptions options;
            options.values = requests[i].options;
            options.cancel = &cancel;
            options.progress = [&progress, i, n](double f) { progress((double(i) + f) / n); };
            SolverRun run;
            run.solver = requests[i].solver;
            try {
                run.plan = runSolver(requests[i].solver, *graph, options);
                run.costs = planCosts(*graph, *run.plan);
            } catch (const SolverCancelled&) {
                return;
            } catch (const std::bad_alloc&) {
                run.error = "out of memory";
            } catch (const std::exception& e) {
                run.error = e.what();
            }
            results->push_back(std::move(run));
            progress(double(i + 1) / n);
        }
    });
}

void SolversPanel::cancel()
{
    m_task->cancel();
}

bool SolversPanel::isRunning() const
{
    return m_task->isRunning();
}

void SolversPanel::waitForFinished()
{
    m_task->waitForFinished();
}

void SolversPanel::onFinished(bool cancelled)
{
    m_run->setEnabled(m_graph != nullptr);
    m_cancel->setEnabled(false);
    m_progress->setValue(cancelled ? 0 : 1000);
    m_model->setRuns(*m_results);
    m_table->resizeColumnsToContents();
    m_status->setText(cancelled ? tr("Cancelled; %1 solver(s) had finished.").arg(m_results->size())
                                : tr("%1 solver(s) finished.").arg(m_results->size()));
    const int best = bestRow();
    if (best >= 0)
        selectRow(best);
    else
        Q_EMIT planSelected(nullptr);
    Q_EMIT runFinished();
}

const Plan* SolversPanel::currentPlan() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (!current.isValid() || current.row() >= m_model->rowCount())
        return nullptr;
    const auto& plan = m_model->run(current.row()).plan;
    return plan ? &*plan : nullptr;
}

const SolverRun* SolversPanel::currentRun() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() && current.row() < m_model->rowCount() ? &m_model->run(current.row()) : nullptr;
}

bool SolversPanel::showPlanInTable(const Plan& plan)
{
    const std::string solver = plan.solver.substr(0, plan.solver.find(" (C="));
    int match = -1;
    for (int row = 0; row < m_model->rowCount() && match < 0; ++row) {
        const SolverRun& run = m_model->run(row);
        if (run.solver == solver && run.plan && run.plan->checkpoints() == plan.checkpoints())
            match = row;
    }
    m_quiet = true;
    if (match >= 0) {
        selectRow(match);
        m_table->scrollTo(m_model->index(match, 0));
    } else {
        m_table->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    }
    m_quiet = false;
    return match >= 0;
}

std::vector<const Plan*> SolversPanel::selectedPlans() const
{
    std::vector<const Plan*> plans;
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (m_table->selectionModel()->isRowSelected(row) && m_model->run(row).plan)
            plans.push_back(&*m_model->run(row).plan);
    return plans;
}

void SolversPanel::selectRows(const std::vector<int>& rows)
{
    if (rows.empty())
        return;
    selectRow(rows.front());
    for (std::size_t i = 1; i < rows.size(); ++i)
        m_table->selectionModel()->select(m_model->index(rows[i], 0),
                                          QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

void SolversPanel::selectRow(int row)
{
    m_table->selectRow(row);
    m_table->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

int SolversPanel::bestRow() const
{
    int best = -1;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const auto& plan = m_model->run(r).plan;
        if (plan && (best < 0 || plan->objective() < m_model->run(best).plan->objective()))
            best = r;
    }
    return best;
}

}  // namespace ckpt::ui
