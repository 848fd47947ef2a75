# The test of a binding whose Debian package was missing when CMake configured the build: fails
# with the package's name (CI installs them all; a silent pass would hide a binding never run).
message(FATAL_ERROR "bindings_${LANG}: not run: ${WHAT} missing when CMake configured this build. "
        "Install it (apt-get install -y ${PACKAGES}) and re-run cmake.")
