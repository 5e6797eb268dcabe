package ragd

import "time"

// Project is one registered git repository.
type Project struct {
	ID int64
	// Name is the project's short public id.
	Name        string
	Path        string
	AutoReindex bool
	CreatedAt   time.Time
}
