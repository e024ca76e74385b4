#include "recent_files_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace {
const char kRecentFilesKey[] = "recentFiles";
}

RecentFilesController::RecentFilesController(QMenu *menu, bool persistent, QObject *parent)
    : QObject(parent), m_menu(menu), m_persistent(persistent) {
    if (m_persistent) m_files = QSettings().value(kRecentFilesKey).toStringList().mid(0, kMaxFiles);
    rebuildMenu();
}

void RecentFilesController::add(const QString &path) {
    const QString file = QFileInfo(path).absoluteFilePath();
    m_files.removeAll(file);
    m_files.prepend(file);
    while (m_files.size() > kMaxFiles) m_files.removeLast();
    save();
}

void RecentFilesController::remove(const QString &path) {
    if (m_files.removeAll(QFileInfo(path).absoluteFilePath()) > 0) save();
}

void RecentFilesController::clear() {
    m_files.clear();
    save();
}

void RecentFilesController::save() {
    if (m_persistent) QSettings().setValue(kRecentFilesKey, m_files);
    rebuildMenu();
}

void RecentFilesController::rebuildMenu() {
    m_menu->clear();
    for (int i = 0; i < m_files.size(); ++i) {
        const QString &file = m_files[i];
        // "&1 model.onnx": keyboard accelerators for the first nine entries.
        const QString name =
            QFileInfo(file).fileName().replace(QLatin1Char('&'), QStringLiteral("&&"));
        const QString text = i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(name) : name;
        QAction *action = m_menu->addAction(text);
        action->setToolTip(QDir::toNativeSeparators(file));
        action->setStatusTip(QDir::toNativeSeparators(file));
        connect(action, &QAction::triggered, this, [this, file] { emit openRequested(file); });
    }
    if (m_files.isEmpty()) m_menu->addAction(tr("No Recent Models"))->setEnabled(false);
    m_menu->addSeparator();
    QAction *clearAction = m_menu->addAction(tr("Clear Menu"), this, &RecentFilesController::clear);
    clearAction->setEnabled(!m_files.isEmpty());
    m_menu->setToolTipsVisible(true);
}
