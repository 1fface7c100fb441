// The contract vocabularies of tarn/upload.h (ContractState, SchemaMode, PlanAction,
// IssueSeverity) have no implicit JSON form: nlohmann::json would write an enum as its integer,
// which is no wire string. Including this header turns `json{{"state", c.state}}` into a
// compile error; write ContractStateName(c.state) and the like instead. Included by every
// module that builds JSON from these types (api's contract_wire.h, upload's store and plan).
#pragma once

#include "tarn/upload.h"

namespace tarn {

template <typename BasicJson>
void to_json(BasicJson&, ContractState) = delete;
template <typename BasicJson>
void to_json(BasicJson&, SchemaMode) = delete;
template <typename BasicJson>
void to_json(BasicJson&, PlanAction) = delete;
template <typename BasicJson>
void to_json(BasicJson&, IssueSeverity) = delete;

}  // namespace tarn
