#pragma once
// Asks what to profile: the TorchScript model, its input shape (remembered per model file in
// QSettings), the device and the iterations.
#include "ProfileRunner.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace ckpt::ui {

class ProfileDialog : public QDialog {
    Q_OBJECT
public:
    explicit ProfileDialog(QWidget* parent = nullptr);

    ProfileRequest request() const;
    // Remembers the model and its input shape for next time (call when accepted).
    void remember() const;

    // The input shape last used with this model file, empty when none.
    static QString rememberedInputShape(const QString& model);
    static void rememberInputShape(const QString& model, const QString& shape);

private:
    QLineEdit* m_model;
    QLineEdit* m_input;
    QComboBox* m_device;
    QSpinBox* m_iterations;
};

}  // namespace ckpt::ui
