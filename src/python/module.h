// The parts of tarn._tarn, each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace tarn::python {

void RegisterClient(pybind11::module_& m);  // client.cc: connect, Client
void RegisterScan(pybind11::module_& m);    // scan.cc: Scan (a streamed scan)

}  // namespace tarn::python
