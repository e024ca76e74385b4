#include "save_file.h"

#include <QDir>
#include <QSaveFile>

namespace ql::ui {

Status saveFile(const QString &path, const QByteArray &bytes) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return Status::io(QDir::toNativeSeparators(path).toStdString() + ": cannot write (" +
                          file.errorString().toStdString() + ")");
    return Status::ok();
}

}  // namespace ql::ui
