package contextd

// Version is the release of this build, reported in the MCP handshake.
const Version = "0.1.0"
