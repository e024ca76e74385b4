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
                               "Open a float ONNX model, or try the Fashion-MNIST demo."),
                            this);
    text->setAlignment(Qt::AlignCenter);
    text->setWordWrap(true);
    auto *open = new QPushButton(tr("Open Model…"), this);
    open->setObjectName(QStringLiteral("welcomeOpenModel"));
    auto *demo = new QPushButton(tr("Open Demo"), this);
    demo->setObjectName(QStringLiteral("welcomeOpenDemo"));
    open->setDefault(true);
    for (QPushButton *button : {open, demo}) {
        button->setMinimumWidth(button->fontMetrics().averageCharWidth() * 22);
        button->setMinimumHeight(button->sizeHint().height() * 5 / 4);
    }
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(open);
    buttons->addWidget(demo);
    buttons->addStretch(1);
    auto *hint = new QLabel(tr("You can also drop an .onnx file here."), this);
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
    connect(open, &QPushButton::clicked, this, &WelcomePage::openModelRequested);
    connect(demo, &QPushButton::clicked, this, &WelcomePage::openDemoRequested);
}

}  // namespace ql::ui
