#pragma once
// The File > Open Recent menu: most recent first, at most kMaxFiles, kept in QSettings.

#include <QObject>
#include <QStringList>

class QMenu;

class RecentFilesController : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxFiles = 10;

    // Fills `menu` (owned by the caller); persistent = read and write QSettings.
    RecentFilesController(QMenu *menu, bool persistent, QObject *parent = nullptr);

    void add(const QString &path);
    void remove(const QString &path);
    void clear();
    const QStringList &files() const { return m_files; }

signals:
    void openRequested(const QString &path);

private:
    void save();
    void rebuildMenu();

    QMenu *m_menu;
    bool m_persistent;
    QStringList m_files;
};
