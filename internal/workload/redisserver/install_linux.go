package redisserver

// InstallHint is the command that provides redis-server on Debian and Ubuntu.
const InstallHint = "apt-get install -y redis-server"
