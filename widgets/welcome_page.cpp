#include "welcome_page.h"

#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace ql::ui {

WelcomePage::WelcomePage(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("welcomePage"));
    auto *icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/icons/quantlens.svg")).pixmap(96, 96));
    icon->setAlignment(Qt::AlignCenter);
    auto *title = new QLabel(tr("QuantLens"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    title->setFont(big);
    title->setAlignment(Qt::AlignCenter);
    auto *text = new QLabel(tr("Find out why an int8-quantized network lost accuracy.\n"
                               "Analyse a float model and its quantized pair, open a model to "
                               "look at it,\nor try the Fashion-MNIST demo."),
                            this);
    text->setAlignment(Qt::AlignCenter);
    text->setWordWrap(true);
    auto *analysis = new QPushButton(tr("New Analysis…"), this);
    analysis->setObjectName(QStringLiteral("welcomeNewAnalysis"));
    auto *open = new QPushButton(tr("Open Model…"), this);
    open->setObjectName(QStringLiteral("welcomeOpenModel"));
    auto *demo = new QPushButton(tr("Open Demo"), this);
    demo->setObjectName(QStringLiteral("welcomeOpenDemo"));
    analysis->setDefault(true);
    for (QPushButton *button : {analysis, open, demo}) {
        button->setMinimumWidth(button->fontMetrics().averageCharWidth() * 22);
        button->setMinimumHeight(button->sizeHint().height() * 5 / 4);
    }
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(analysis);
    buttons->addWidget(open);
    buttons->addWidget(demo);
    buttons->addStretch(1);
    auto *hint = new QLabel(tr("You can also drop .onnx files or a .qlproj project here."), this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setForegroundRole(QPalette::PlaceholderText);

    auto *layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(icon);
    layout->addWidget(title);
    layout->addWidget(text);
    layout->addSpacing(12);
    layout->addLayout(buttons);
    layout->addSpacing(8);
    layout->addWidget(hint);
    layout->addStretch(3);
    connect(analysis, &QPushButton::clicked, this, &WelcomePage::newAnalysisRequested);
    connect(open, &QPushButton::clicked, this, &WelcomePage::openModelRequested);
    connect(demo, &QPushButton::clicked, this, &WelcomePage::openDemoRequested);
}

}  // namespace ql::ui
