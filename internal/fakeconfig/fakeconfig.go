// Package fakeconfig hands a fakezk.Config to the module's other drivers
// of a Machine (the simulator). fakezk's Config is public and cannot name
// the internal Machine's, so fakezk keeps the one conversion between them
// unexported and registers it here when it is initialised; any package
// that holds a fakezk.Config has linked fakezk, so the conversion is
// always there.
package fakeconfig

import "github.com/zksim/zksim/internal/machine"

var convert func(any) machine.Config

// Register is called once, by fakezk's init, with its conversion.
func Register(f func(any) machine.Config) { convert = f }

// Machine returns the Machine's Config for c, a fakezk.Config, without
// the defaults a fakezk.Server adds: a bare Machine keeps 0 as "no reaper
// of its own" and "virtual time from 0".
func Machine(c any) machine.Config { return convert(c) }
