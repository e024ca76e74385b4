#include "path_field.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QToolButton>

namespace ql::ui {

namespace {
const QString kSeparator = QStringLiteral("; ");
}  // namespace

QString joinPathField(const QStringList &paths) {
    return paths.join(kSeparator);
}

QStringList splitPathField(const QString &text) {
    QStringList paths;
    for (const QString &part : text.split(QLatin1Char(';'), Qt::SkipEmptyParts))
        if (!part.trimmed().isEmpty()) paths.append(part.trimmed());
    return paths;
}

QWidget *pathFieldRow(QWidget *parent, QLineEdit *edit, const QLineEdit *fallback,
                      const QString &filter, bool multiple, bool folder) {
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto *browse = new QToolButton(row);
    browse->setText(multiple ? QCoreApplication::translate("PathField", "Files…")
                             : QCoreApplication::translate("PathField", "Browse…"));
    layout->addWidget(browse);
    QObject::connect(browse, &QToolButton::clicked, row, [row, edit, fallback, filter, multiple] {
        const QString start =
            QFileInfo(splitPathField(edit->text()).value(0, fallback->text())).absolutePath();
        if (multiple) {
            const QStringList files = QFileDialog::getOpenFileNames(
                row, QCoreApplication::translate("PathField", "Choose Files"), start, filter);
            if (!files.isEmpty()) edit->setText(joinPathField(files));
        } else {
            const QString file = QFileDialog::getOpenFileName(
                row, QCoreApplication::translate("PathField", "Choose File"), start, filter);
            if (!file.isEmpty()) edit->setText(file);
        }
    });
    if (folder) {
        auto *chooseFolder = new QToolButton(row);
        chooseFolder->setText(QCoreApplication::translate("PathField", "Folder…"));
        layout->addWidget(chooseFolder);
        QObject::connect(chooseFolder, &QToolButton::clicked, row, [row, edit, fallback] {
            const QString start = QFileInfo(fallback->text()).absolutePath();
            const QString dir = QFileDialog::getExistingDirectory(
                row, QCoreApplication::translate("PathField", "Choose Folder"), start);
            if (!dir.isEmpty()) edit->setText(dir);
        });
    }
    return row;
}

}  // namespace ql::ui
