#include "ImportDialog.h"

#include "ProfileDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>

namespace ckpt::ui {

ImportDialog::ImportDialog(const QString& model, QWidget* parent)
    : QDialog(parent), m_model(model), m_input(new QLineEdit(this)), m_granularity(new QComboBox(this)),
      m_dtype(new QComboBox(this))
{
    setWindowTitle(tr("Open TorchScript model"));
    setObjectName(QStringLiteral("importDialog"));
    m_input->setObjectName(QStringLiteral("importInput"));
    m_input->setPlaceholderText(QStringLiteral("1x3x224x224"));
    // Dimensions joined by 'x'; whatever else ckptx-torch checks and reports itself.
    m_input->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\s*\\d+(\\s*[xX×]\\s*\\d+)*\\s*")), m_input));
    m_input->setText(ProfileDialog::rememberedInputShape(model));
    auto* hint = new QLabel(tr("The model's input tensor, dimensions joined by <b>x</b>: batch × channels × height × "
                               "width, e.g. <b>1x3x224x224</b> for an ImageNet model."),
                            this);
    hint->setWordWrap(true);
    m_granularity->setObjectName(QStringLiteral("importGranularity"));
    m_granularity->addItem(tr("op — one vertex per operation"), QStringLiteral("op"));
    m_granularity->addItem(tr("module — one vertex per module (smaller graph)"), QStringLiteral("module"));
    m_dtype->setObjectName(QStringLiteral("importDtype"));
    for (const char* dtype : {"float32", "float64", "float16", "bfloat16"})
        m_dtype->addItem(QString::fromLatin1(dtype), QString::fromLatin1(dtype));
    auto* form = new QFormLayout(this);
    form->addRow(tr("Model:"), new QLabel(QFileInfo(model).fileName(), this));
    form->addRow(tr("Input shape:"), m_input);
    form->addRow(QString(), hint);
    form->addRow(tr("Granularity:"), m_granularity);
    form->addRow(tr("Data type:"), m_dtype);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto updateOk = [this, buttons] { buttons->button(QDialogButtonBox::Ok)->setEnabled(m_input->hasAcceptableInput()); };
    connect(m_input, &QLineEdit::textChanged, this, updateOk);
    updateOk();
    form->addRow(buttons);
}

ImportRequest ImportDialog::request() const
{
    QString shape = m_input->text().simplified().remove(QLatin1Char(' ')).toLower();
    shape.replace(QChar(0x00D7), QLatin1Char('x'));
    return {m_model, shape, m_granularity->currentData().toString(), m_dtype->currentData().toString()};
}

}  // namespace ckpt::ui
