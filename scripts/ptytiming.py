"""Start-up as a person sees it: the time from spawning `stories` in a pseudo-terminal to the
first bubble of the ring row on it. Shared by scripts/bench-startup and scripts/bench-folder."""
import fcntl, os, pty, select, signal, struct, termios, time

# The peak resident memory (kB, VmHWM) of the last process timed, read just before it is stopped.
last_peak_kb = None


# What an xterm (patch 379) answers to the app's questions, DA1 last: `shown_after(answers=...)`
# plays a terminal that answers, as soon as the app's DA1 question (ESC [ c) is written.
XTERM_ANSWERS = ("\x1bP>|XTerm(379)\x1b\\" "\x1bP1+r524742=382F382F38\x1b\\" "\x1bP1$r0;48:2::1:2:3m\x1b\\"
                 "\x1b[?2;0;1000;1000S" "\x1b]11;rgb:0000/0000/0000\x1b\\" "\x1b[?1006;1$y"
                 "\x1b[?63;1;2;6;9;15;16;17;18;21;22;28c").encode()


def shown_after(argv, extra_env, answers=None):
    """Milliseconds from spawning `argv` in a 100x30 pseudo-terminal to the first '╭' it
    writes (a bubble's ring); None when none comes within 20 s. `answers`: bytes the
    terminal writes back once the app has asked DA1 (None: a terminal that answers nothing)."""
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
        if answers is not None and b"\x1b[c" in seen:
            os.write(fd, answers)
            answers = None
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
