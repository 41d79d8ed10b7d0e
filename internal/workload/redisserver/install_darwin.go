package redisserver

// InstallHint is the command that provides redis-server on macOS.
const InstallHint = "brew install redis"
