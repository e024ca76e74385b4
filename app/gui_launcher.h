#pragma once

// Opens the main window (argv may carry --demo or a model path); returns the exit code.
int runGui(int argc, char *argv[]);
