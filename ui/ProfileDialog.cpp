#include "ProfileDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace ckpt::ui {

namespace {

QString settingsKey(const QString& model)
{
    // QSettings keys treat '/' as groups; the hex of the absolute path is a flat, safe key.
    return QStringLiteral("profile/inputShape/") + QString::fromLatin1(QFileInfo(model).absoluteFilePath().toUtf8().toHex());
}

}  // namespace

ProfileDialog::ProfileDialog(QWidget* parent)
    : QDialog(parent), m_model(new QLineEdit(this)), m_input(new QLineEdit(this)), m_device(new QComboBox(this)),
      m_iterations(new QSpinBox(this))
{
    setWindowTitle(tr("Profile the current plan"));
    m_model->setObjectName(QStringLiteral("profileModel"));
    m_input->setObjectName(QStringLiteral("profileInput"));
    m_input->setPlaceholderText(QStringLiteral("1x3x224x224"));
    m_device->addItems({QStringLiteral("cpu"), QStringLiteral("cuda")});
    m_iterations->setRange(1, 100);
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("TorchScript model"), m_model->text(),
                                                          tr("TorchScript (*.pt *.pth);;All files (*)"));
        if (!path.isEmpty())
            m_model->setText(path);
    });
    connect(m_model, &QLineEdit::textChanged, this, [this](const QString& model) {
        if (const QString shape = rememberedInputShape(model); !shape.isEmpty())
            m_input->setText(shape);
    });
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(browse);
    auto* form = new QFormLayout(this);
    form->addRow(tr("Model (.pt the graph was imported from):"), modelRow);
    form->addRow(tr("Input shape:"), m_input);
    form->addRow(tr("Device:"), m_device);
    form->addRow(tr("Iterations:"), m_iterations);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    const QSettings settings;
    m_model->setText(settings.value(QStringLiteral("profile/lastModel")).toString());
    m_device->setCurrentText(settings.value(QStringLiteral("profile/device"), QStringLiteral("cpu")).toString());
    m_iterations->setValue(settings.value(QStringLiteral("profile/iterations"), 1).toInt());
}

ProfileRequest ProfileDialog::request() const
{
    return {m_model->text(), m_input->text().trimmed(), m_device->currentText(), m_iterations->value()};
}

void ProfileDialog::remember() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("profile/lastModel"), m_model->text());
    settings.setValue(QStringLiteral("profile/device"), m_device->currentText());
    settings.setValue(QStringLiteral("profile/iterations"), m_iterations->value());
    rememberInputShape(m_model->text(), m_input->text().trimmed());
}

QString ProfileDialog::rememberedInputShape(const QString& model)
{
    return QSettings().value(settingsKey(model)).toString();
}

void ProfileDialog::rememberInputShape(const QString& model, const QString& shape)
{
    QSettings().setValue(settingsKey(model), shape);
}

}  // namespace ckpt::ui
