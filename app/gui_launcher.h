#pragma once

class QCoreApplication;

// Qt's strings and QuantLens' own in the user's language (the GUI, and reports from the CLI).
void installTranslators(QCoreApplication &app);

// Opens the main window; returns the process exit code. Arguments from argv[firstArgument] on:
//   [--demo | MODEL.onnx] [--screenshot FILE.png]
// With --screenshot the window loads the model, renders itself into FILE and exits
// (0, or non-zero with a one-line message when loading failed). `quantlens gui ...` passes 2.
int runGui(int argc, char *argv[], int firstArgument = 1);
