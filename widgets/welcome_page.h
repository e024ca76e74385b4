#pragma once
// What an empty main window shows: how to start, with buttons for the first steps.

#include <QWidget>

class QPushButton;

namespace ql::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget *parent = nullptr);

signals:
    void newAnalysisRequested();
    void openModelRequested();
    void openDemoRequested();
};

}  // namespace ql::ui
