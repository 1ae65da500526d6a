"""Start-up as a person sees it: the time from spawning `stories` in a pseudo-terminal to the
first bubble of the ring row on it. Shared by scripts/bench-startup and scripts/bench-folder."""
import fcntl, os, pty, select, signal, struct, termios, time

# The peak resident memory (kB, VmHWM) of the last process timed, read just before it is stopped.
last_peak_kb = None


def shown_after(argv, extra_env):
    """Milliseconds from spawning `argv` in a 100x30 pseudo-terminal to the first '╭' it
    writes (a bubble's ring); None when none comes within 20 s."""
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30", **extra_env)
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)  # never run the parent's code in the child
    # The terminal's size, as tmux would give it.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    seen = b""
    result = None
    deadline = started + 20
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen += chunk
        if "╭".encode() in seen:
            result = (time.monotonic() - started) * 1000
            break
    global last_peak_kb
    last_peak_kb = None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    last_peak_kb = int(line.split()[1])
    except OSError:
        pass
    os.kill(pid, signal.SIGTERM)
    # Drain until it has given the terminal back and gone.
    end = time.monotonic() + 5
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                if not os.read(fd, 65536): break
            except OSError:
                break
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done: break
    os.close(fd)
    return result
