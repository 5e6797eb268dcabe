package ragd

// Passage is a resolved citation: the whole section or message it points
// into, with what surrounds it.
type Passage struct {
	Project string
	Scope   string
	// Origin cites the passage: the file, the section's heading path and
	// the commit; or the session and the message.
	Origin Origin
	// ChunkID is the chunk asked for, when the passage was asked by chunk.
	ChunkID string
	// Text is the whole section (its chunks joined, their overlaps removed)
	// or the whole message.
	Text string
	// Chunks are the ids of the chunks Text is made of, in order.
	Chunks []string

	// Parent is the section enclosing this one (the text under the title
	// for a top-level section); nil for the text under the title, which
	// nothing encloses. Previous and Next are the sections before and after
	// this one in the document; Subsections those directly under it.
	// Heading paths only: ask for one to read it.
	Parent      *SectionRef
	Previous    *SectionRef
	Next        *SectionRef
	Subsections []SectionRef

	// Message is the cited session event; Before and After the messages
	// around it in its session, in order.
	Message *Event
	Before  []Event
	After   []Event
}

// SectionRef names a section of the same document by its heading path
// (empty: the text under the title).
type SectionRef struct {
	HeadingPath []string
}
