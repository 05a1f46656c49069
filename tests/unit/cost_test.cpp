#include <catch2/catch.hpp>

#include "strata/model/study/cost.hpp"

using strata::model::cost_usd;
using strata::model::Pricing;

TEST_CASE("spec 6 case 33: cost formula", "[cost]") {
  const Pricing pricing{2, 1, 4};
  CHECK(cost_usd(pricing, 1500, 500, 1000) == 0.0065);
  CHECK(cost_usd(pricing, 100, 20, 30) == 0.0003);
  CHECK(cost_usd(pricing, 100, 500, 0) == 0.0001);  // cached above input is clamped
  CHECK(cost_usd(pricing, 100, std::nullopt, 30) == 0.00032);
  CHECK_FALSE(cost_usd(pricing, 100, 20, std::nullopt).has_value());
  CHECK_FALSE(cost_usd(pricing, std::nullopt, 20, 30).has_value());
}
