#include "cli/command.h"

int main(int argc, char** argv) { return perftk::cli::RunMain(argc, argv); }
