// Result formatting: the human summary, and CSV from the same JSON the --json file has.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "tb/traffic_run.h"

namespace fm {

std::string human_summary(const TrafficResult& r);
// Header row + one value row: scalar fields, arrays of numbers joined with ';',
// nested objects flattened as parent.key; arrays of objects (per-link maps) left out.
std::string csv_from_json(const nlohmann::ordered_json& j);

}  // namespace fm
