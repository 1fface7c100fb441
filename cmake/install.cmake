# `cmake --install`: the SDK's headers (include/tarn), the static libraries they need, and a CMake
# package, so that another project does
#
#   find_package(tarn REQUIRED)
#   target_link_libraries(app PRIVATE tarn::tarn)     # embedded and remote (Client::Connect)
#   target_link_libraries(app PRIVATE tarn::client)   # tarn serve only (Client::ConnectRemote):
#                                                      # no SQLite, libpq or argon2
#
# tests/install builds and runs such a project against an installed tree (ctest label install).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The two targets users link; the module libraries below are their link interface.
add_library(tarn_sdk_client INTERFACE)
target_link_libraries(tarn_sdk_client INTERFACE tarn_client)
target_include_directories(tarn_sdk_client INTERFACE
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(tarn_sdk_client PROPERTIES EXPORT_NAME client)
add_library(tarn_sdk_full INTERFACE)
target_link_libraries(tarn_sdk_full INTERFACE tarn_connect tarn_sql tarn_sdk_client)
set_target_properties(tarn_sdk_full PROPERTIES EXPORT_NAME tarn)
add_library(tarn::client ALIAS tarn_sdk_client)
add_library(tarn::tarn ALIAS tarn_sdk_full)

# Every module library either target reaches, in no particular order (the link interface
# orders them).
set(TARN_INSTALLED_LIBS
    tarn_common tarn_types tarn_parquet tarn_table tarn_formats tarn_objectstore tarn_sdk tarn_api
    tarn_client tarn_metastore tarn_alerts tarn_schedule tarn_datafile tarn_catalog tarn_upload
    tarn_connect tarn_sql tarn_avro tarn_iceberg)
install(TARGETS ${TARN_INSTALLED_LIBS} tarn_sdk_client tarn_sdk_full EXPORT tarnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/tarn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT tarnTargets NAMESPACE tarn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tarn)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tarnConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/tarnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tarn)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tarnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tarnConfig.cmake ${CMAKE_BINARY_DIR}/tarnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tarn)
