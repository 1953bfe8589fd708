// Package usage reads the whole history of every agent the bridge reads
// (each agent's records, through the same parsers the streams use) and
// sums what each completed turn cost by day, week, month, session,
// workspace, model or 5-hour block.
//
// It counts turns, not lines: every number here is the sum of the
// turn_complete events the streams would send for the same records, so
// the usage command, the usage page and the menu bar cannot disagree.
//
// usage names no agent: each agent's package implements driver.Format
// (which files are its records, how their lines become turns, the state
// a later read goes on from), and the app hands Source the list.
package usage

import "conductorbridge/bridge/usage/driver"

// Turn is one turn_complete as the report counts it, with where it ran.
type Turn = driver.Turn

// Limit is a plan limit as an agent records it (driver.Limit).
type Limit = driver.Limit
