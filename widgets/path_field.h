#pragma once
// A line edit for one or several file paths with its Browse / Files… / Folder… buttons, shared by
// the analysis setup dialog and the calibration lab dialog. Several paths share the line,
// separated by "; ".

#include <QLineEdit>
#include <QString>
#include <QStringList>
#include <QWidget>

namespace ql::ui {

QString joinPathField(const QStringList &paths);
QStringList splitPathField(const QString &text);

// The row for `edit` (re-parented into it): `multiple` picks several files, `folder` adds a folder
// button. File dialogs start in the folder of the field's first path, else of `fallback`'s.
QWidget *pathFieldRow(QWidget *parent, QLineEdit *edit, const QLineEdit *fallback,
                      const QString &filter, bool multiple, bool folder);

}  // namespace ql::ui
