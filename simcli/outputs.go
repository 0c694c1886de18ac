package simcli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A run's reports are what CI keeps of it: a path that cannot be
// written is found before the run, as a usage error, not after an hour
// of exploring as a lost report.

// errNotWritable is wrapped by every reason an output path is refused.
var errNotWritable = errors.New("cannot be written")

// checkFileOutput says whether a file can be written at path, by opening
// it for writing as the report will; a file this check creates is
// removed again.
func checkFileOutput(flagName, path string) error {
	if path == "" {
		return nil
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("-%s %s %w: %v", flagName, path, errNotWritable, unwrapPath(err))
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		os.Remove(path)
	}
	return nil
}

// checkDirOutput says whether files can be made in dir, which a failure
// creates (with its parents) only when it has a trace to save: a file is
// made and removed in dir, or in its nearest existing parent.
func checkDirOutput(flagName, dir string) error {
	at := dir
	for {
		st, err := os.Stat(at)
		if err == nil && !st.IsDir() {
			return fmt.Errorf("-%s %s %w: %s is not a directory", flagName, dir, errNotWritable, at)
		}
		if err == nil {
			break
		}
		up := filepath.Dir(at)
		if !errors.Is(err, fs.ErrNotExist) || up == at {
			return fmt.Errorf("-%s %s %w: %v", flagName, dir, errNotWritable, unwrapPath(err))
		}
		at = up
	}
	f, err := os.CreateTemp(at, ".zksim-write-check-*")
	if err != nil {
		return fmt.Errorf("-%s %s %w: %v", flagName, dir, errNotWritable, unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwrapPath is a path error's reason alone: the message names the path
// already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkOutputs refuses, before a simulated run, the -summary, -junit and
// -out paths it could not write.
func (rc runConfig) checkOutputs() error {
	return errors.Join(checkFileOutput("summary", rc.summary), checkFileOutput("junit", rc.junit), checkDirOutput("out", rc.out))
}
