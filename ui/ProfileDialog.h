#pragma once
// Asks what to profile: a TorchScript file (ckptx-torch, LibTorch) or a Python model
// (FILE.py:FACTORY, run by the Python interpreter the user names, where their torch and GPU are),
// its input shape (remembered per model in QSettings), the device and the iterations.
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
    void sourceChanged();

    QComboBox* m_source;
    QLineEdit* m_python;
    QLineEdit* m_model;
    QLineEdit* m_input;
    QComboBox* m_device;
    QSpinBox* m_iterations;
};

}  // namespace ckpt::ui
