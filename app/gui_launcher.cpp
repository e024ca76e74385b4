#include "gui_launcher.h"

#include <QApplication>
#include <QMainWindow>

int runGui(int argc, char *argv[]) {
    QApplication app(argc, argv);
    QMainWindow window;
    window.show();
    return app.exec();
}
