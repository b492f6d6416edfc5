// The one quantity parser lives in lib/shared (the config schema uses it too).
export { compareQuantities, hasSubUnitSuffix, parseQuantity } from '../shared/quantity';
export type { Quantity } from '../shared/quantity';
