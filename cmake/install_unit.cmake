# install_unit — run by `cmake --install` (install(CODE) in CMakeLists.txt):
# installs daemon/cli/storbench.service into SB_UNIT_DIR with the paths it names
# (/usr/bin/storbench, /usr/share/doc/storbench) moved to this install's
# prefix, so a unit installed under /usr/local runs /usr/local/bin/storbench.
# For --prefix /usr the unit is installed unchanged.
#
# In:  SB_UNIT_SRC (the unit), SB_UNIT_TMP (a scratch file in the build
#      tree), SB_UNIT_DIR, SB_BINDIR, SB_DOCDIR (absolute, or relative to
#      CMAKE_INSTALL_PREFIX, which is the install-time prefix here).
foreach(v SB_UNIT_DIR SB_BINDIR SB_DOCDIR)
  if(IS_ABSOLUTE "${${v}}")
    set(_${v} "${${v}}")
  else()
    set(_${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
  endif()
endforeach()
file(READ "${SB_UNIT_SRC}" _unit)
string(REPLACE "/usr/bin/storbench" "${_SB_BINDIR}/storbench" _unit "${_unit}")
string(REPLACE "/usr/share/doc/storbench" "${_SB_DOCDIR}" _unit "${_unit}")
file(WRITE "${SB_UNIT_TMP}" "${_unit}")
file(INSTALL DESTINATION "${_SB_UNIT_DIR}" TYPE FILE
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
     RENAME storbench.service FILES "${SB_UNIT_TMP}")
