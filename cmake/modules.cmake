# sb_module(NAME DEPS ...): src/NAME/*.cpp -> static library sb_NAME (header-only folders -> INTERFACE).
function(sb_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${name}/*.cpp")
  if(srcs)
    add_library(sb_${name} STATIC ${srcs})
    target_include_directories(sb_${name} PUBLIC "${PROJECT_SOURCE_DIR}/src")
    target_link_libraries(sb_${name} PUBLIC ${M_DEPS} sb_warnings sb_platform)
    target_compile_definitions(sb_${name} PUBLIC SB_VERSION="${PROJECT_VERSION}")
  else()
    add_library(sb_${name} INTERFACE)
    target_include_directories(sb_${name} INTERFACE "${PROJECT_SOURCE_DIR}/src")
    target_link_libraries(sb_${name} INTERFACE ${M_DEPS} sb_warnings sb_platform)
    target_compile_definitions(sb_${name} INTERFACE SB_VERSION="${PROJECT_VERSION}")
  endif()
endfunction()

# tests/NAME/*_test.cpp -> executable sb_NAME_tests, one CTest test per TEST().
function(sb_module_tests)
  foreach(name IN LISTS ARGN)
    file(GLOB tests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/${name}/*_test.cpp")
    if(NOT tests)
      continue()
    endif()
    add_executable(sb_${name}_tests ${tests})
    # Each test file re-parses the GoogleTest/GoogleMock headers; compiling them six to a batch
    # parses those once per batch, which shortens a clean build on a 2-core machine. The price:
    # files of one folder share a translation unit, so their file-local helpers need distinct names.
    set_target_properties(sb_${name}_tests PROPERTIES UNITY_BUILD ${SB_UNITY_TESTS} UNITY_BUILD_BATCH_SIZE 6)
    target_link_libraries(sb_${name}_tests PRIVATE sb_${name} GTest::gtest_main GTest::gmock sb_cold_code)
    target_include_directories(sb_${name}_tests PRIVATE "${PROJECT_SOURCE_DIR}/tests")
    target_compile_definitions(sb_${name}_tests PRIVATE
      SB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" SB_SHARED_DIR="${SB_SHARED_DIR}")
    gtest_discover_tests(sb_${name}_tests
      WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
      DISCOVERY_TIMEOUT 60
      PROPERTIES LABELS ${name})
  endforeach()
endfunction()

# tests/e2e/*_test.cpp: run the real binary (path passed as SB_BINARY) against the simulator.
function(sb_e2e_tests)
  file(GLOB tests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/e2e/*_test.cpp")
  if(NOT tests)
    return()
  endif()
  add_executable(sb_e2e_tests ${tests})
  # Same reason as sb_module_tests: parse the GoogleTest headers once per batch of six files.
  set_target_properties(sb_e2e_tests PROPERTIES UNITY_BUILD ${SB_UNITY_TESTS} UNITY_BUILD_BATCH_SIZE 6)
  target_link_libraries(sb_e2e_tests PRIVATE sb_core sb_report sb_analyze sb_results sb_trace sb_protocol sb_target sb_orchestrate sb_sim nlohmann_json::nlohmann_json
    GTest::gtest_main GTest::gmock sb_warnings sb_platform sb_cold_code)
  target_include_directories(sb_e2e_tests PRIVATE "${PROJECT_SOURCE_DIR}/tests" "${PROJECT_SOURCE_DIR}/src")
  target_compile_definitions(sb_e2e_tests PRIVATE
    SB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" SB_SHARED_DIR="${SB_SHARED_DIR}"
    SB_BINARY="$<TARGET_FILE:servebench>")
  add_dependencies(sb_e2e_tests servebench)
  # Serial: they measure latencies against configured costs, and a parallel unit-test burst on a
  # 2-core machine would show up in their numbers.
  gtest_discover_tests(sb_e2e_tests WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
    DISCOVERY_TIMEOUT 60 PROPERTIES LABELS e2e RUN_SERIAL TRUE)
endfunction()
