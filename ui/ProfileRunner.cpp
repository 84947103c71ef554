#include "ProfileRunner.h"

#include "graph/GraphError.h"
#include "io/GraphJson.h"
#include "io/PlanJson.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <stdexcept>
#include <utility>

namespace ckpt::ui {

namespace {

QString lastLine(const QString& text)
{
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.back().trimmed();
}

// Where a checkout keeps the Python package; an installed one is on the interpreter's own path.
QString packageFolder()
{
    const QString folder = QStringLiteral(CKPT_PYTHON_SOURCE_DIR);
    return QDir(folder).exists(QStringLiteral("checkpoint_explorer")) ? folder : QString();
}

}  // namespace

bool ProfileRequest::isPythonModel() const
{
    const auto colon = model.lastIndexOf(QLatin1Char(':'));
    return colon > 0 && model.left(colon).endsWith(QLatin1String(".py"));
}

ProfileRunner::ProfileRunner(QObject* parent) : QObject(parent), m_tool(defaultTool()) {}

ProfileRunner::~ProfileRunner()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString ProfileRunner::defaultTool()
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ckptx-torch"));
}

bool ProfileRunner::start(const ProfileRequest& request, const Graph& graph, const Plan& plan, QString* error)
{
    if (m_process) {
        *error = tr("A profile is already running.");
        return false;
    }
    m_dir = std::make_unique<QTemporaryDir>();
    const QString graphFile = m_dir->filePath(QStringLiteral("graph.json"));
    const QString planFile = m_dir->filePath(QStringLiteral("plan.json"));
    try {
        if (!m_dir->isValid())
            throw std::runtime_error("cannot create a temporary folder: " + m_dir->errorString().toStdString());
        writeGraphFile(graphFile.toStdString(), graph);
        writePlanFile(planFile.toStdString(), graph, plan);
    } catch (const std::exception& e) {
        *error = tr("Cannot write the profile's inputs: %1").arg(QString::fromStdString(e.what()));
        m_dir.reset();
        return false;
    }
    m_importOutput.clear();
    QStringList args{QStringLiteral("profile"), request.model, QStringLiteral("--graph"), graphFile, QStringLiteral("--plan"),
                     planFile};
    for (const QString& input : request.inputShape.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        args << QStringLiteral("--input") << input;
    args << QStringLiteral("--device") << request.device << QStringLiteral("--iterations")
         << QString::number(request.iterations) << QStringLiteral("-o") << m_dir->filePath(QStringLiteral("trace.json"));
    if (request.isPythonModel()) {
        const QString python = request.python.isEmpty() ? QStringLiteral("python3") : request.python;
        run(python, QStringList{QStringLiteral("-m"), QStringLiteral("checkpoint_explorer")} + args, true);
    } else {
        run(m_tool, args);
    }
    return true;
}

bool ProfileRunner::startImport(const ImportRequest& request, const QString& output, QString* error)
{
    if (m_process) {
        *error = tr("ckptx-torch is already running.");
        return false;
    }
    m_importOutput = output;
    QFile::remove(output);  // so that a failed run cannot leave an older graph to be opened
    run(m_tool, {QStringLiteral("import"), request.model, QStringLiteral("--input"), request.inputShape,
                 QStringLiteral("--granularity"), request.granularity, QStringLiteral("--dtype"), request.dtype,
                 QStringLiteral("-o"), output});
    return true;
}

void ProfileRunner::run(const QString& program, const QStringList& args, bool python)
{
    m_stderr.clear();
    m_cancelled = false;
    m_running = QFileInfo(program).fileName() + (python ? QStringLiteral(" -m checkpoint_explorer") : QString());
    m_process = new QProcess(this);
    if (python) {
        if (const QString folder = packageFolder(); !folder.isEmpty()) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            const QString path = env.value(QStringLiteral("PYTHONPATH"));
            env.insert(QStringLiteral("PYTHONPATH"), path.isEmpty() ? folder : folder + QLatin1Char(':') + path);
            m_process->setProcessEnvironment(env);
        }
    }
    connect(m_process, &QProcess::finished, this, &ProfileRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            finish(std::nullopt, tr("Cannot run %1: %2").arg(QDir::toNativeSeparators(m_process->program()),
                                                              m_process->errorString()));
    });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QString text = QString::fromLocal8Bit(m_process->readAllStandardError());
        m_stderr += text;
        if (const QString line = lastLine(text); !line.isEmpty())
            Q_EMIT message(line);
    });
    m_process->start(program, args);
}

void ProfileRunner::cancel()
{
    if (!m_process)
        return;
    m_cancelled = true;
    m_process->kill();
}

void ProfileRunner::waitForFinished()
{
    while (m_process)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
}

QString ProfileRunner::failure(int exitCode, QProcess::ExitStatus status, const QString& output) const
{
    const QString last = lastLine(m_stderr);
    const QString detail = last.isEmpty() ? QString() : tr(": %1").arg(last);
    if (m_cancelled)
        return m_importOutput.isEmpty() ? tr("Profile cancelled.") : tr("Import cancelled.");
    if (status == QProcess::CrashExit)
        return tr("%1 crashed or was killed (out of memory?)%2").arg(m_running, detail);
    // A profile exits 1 with a trace when the gradients differ: the trace is still worth showing (it says so).
    const bool wrote = QFile::exists(output);
    if (exitCode != 0 && !(exitCode == 1 && wrote && m_importOutput.isEmpty()))
        return tr("%1 exited with code %2%3").arg(m_running).arg(exitCode).arg(detail);
    if (!wrote)
        return tr("%1 wrote nothing (exit code %2)%3").arg(m_running).arg(exitCode).arg(detail);
    return QString();
}

void ProfileRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_stderr += QString::fromLocal8Bit(m_process->readAllStandardError());
    if (!m_importOutput.isEmpty())
        return finish(std::nullopt, failure(exitCode, status, m_importOutput));
    const QString traceFile = m_dir->filePath(QStringLiteral("trace.json"));
    if (const QString error = failure(exitCode, status, traceFile); !error.isEmpty())
        return finish(std::nullopt, error);
    QFile file(traceFile);
    if (!file.open(QIODevice::ReadOnly))
        return finish(std::nullopt, tr("Cannot read the trace: %1").arg(file.errorString()));
    try {
        return finish(parseTraceJson(file.readAll().toStdString(), traceFile.toStdString()), QString());
    } catch (const std::exception& e) {
        return finish(std::nullopt, tr("Cannot read the trace: %1").arg(QString::fromStdString(e.what())));
    }
}

void ProfileRunner::finish(const std::optional<ProfileTrace>& trace, const QString& error)
{
    if (!m_process)
        return;  // FailedToStart is also followed by finished() on some platforms
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
    m_dir.reset();
    if (const QString graphFile = std::exchange(m_importOutput, QString()); !graphFile.isEmpty())
        Q_EMIT imported(error.isEmpty() ? graphFile : QString(), error);
    else
        Q_EMIT finished(trace, error);
}

}  // namespace ckpt::ui
