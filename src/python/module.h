// The parts of tarn._tarn, each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "tarn/client.h"

namespace tarn::python {

void RegisterClient(pybind11::module_& m);   // client.cc: connect, Client
void RegisterScan(pybind11::module_& m);     // scan.cc: Scan (a streamed scan)
void RegisterUploads(pybind11::module_& m);  // uploads.cc: Uploads

// The C++ client of a _tarn.Client (client.cc); a TypeError for any other object.
std::shared_ptr<Client> NativeClient(const pybind11::handle& client);

}  // namespace tarn::python
