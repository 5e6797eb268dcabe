package main

import (
	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/store"
)

// permissionWarnings says, for ragd doctor, what of the database other
// users can reach, each with the chmod that fixes it: for a SQLite file; a
// server's database is the server's to guard.
func permissionWarnings(database string) []string {
	if domain.IsDatabaseURL(database) {
		return nil
	}
	return store.PermissionWarnings(database)
}
