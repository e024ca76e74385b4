#pragma once
// GUI tests' wait on a MainWindow: until its analysis, and whatever it queued (toggles, latency),
// has finished with a report.
#include <QElapsedTimer>
#include <QTest>

#include "analysis_controller.h"
#include "main_window.h"

constexpr int kAnalysisTimeoutMs = 240000;

inline bool waitIdle(MainWindow &window) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < kAnalysisTimeoutMs) {
        QTest::qWait(20);
        if (!window.analysis()->isBusy() && window.analysis()->report()) return true;
    }
    return false;
}
