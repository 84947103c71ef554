#pragma once
// File ▸ Open TorchScript model…: the input shape (with its format, remembered per model file),
// the granularity (one vertex per operation or per module) and the dtype `ckptx-torch import` uses.
#include "ProfileRunner.h"

#include <QDialog>

class QComboBox;
class QLineEdit;

namespace ckpt::ui {

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    ImportDialog(const QString& model, QWidget* parent = nullptr);
    ImportRequest request() const;

private:
    QString m_model;
    QLineEdit* m_input;
    QComboBox* m_granularity;
    QComboBox* m_dtype;
};

}  // namespace ckpt::ui
