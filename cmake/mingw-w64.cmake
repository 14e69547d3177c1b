# The toolchain of storbench.exe: Debian's mingw-w64 for Windows x86-64
# (the -posix compiler: winpthreads), its libraries from SB_WIN_PREFIX
# (scripts/build-windows builds them from Debian's source packages and
# writes their pkg-config files there).
#
#   cmake -S . -B build-win/exe -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
#         -DSB_WIN_PREFIX=$PWD/build-win/prefix
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# (CMake's compiler checks run this file again in their own projects)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SB_WIN_PREFIX)
if(NOT SB_WIN_PREFIX)
  message(FATAL_ERROR "-DSB_WIN_PREFIX=<scripts/build-windows' prefix> is needed")
endif()
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${SB_WIN_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# pkg-config reads only the prefix's .pc files, never the machine's
set(ENV{PKG_CONFIG_LIBDIR} ${SB_WIN_PREFIX}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
