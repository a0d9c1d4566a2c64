import CNcursesw
import Glibc
import TerminalCore

/// Why the paywall cannot use this terminal: said in one line, never an ncurses abort.
public struct TerminalUnavailable: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// A `Terminal` on ncursesw: copies only the cells that changed since the last
/// canvas, and decodes keys, mouse clicks and resizes into `TerminalEvent`s.
public final class CursesTerminal<Target: Hashable & Sendable>: Terminal {
    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let input: UnsafeMutablePointer<FILE>?
    private let output: UnsafeMutablePointer<FILE>?
    private let ownsFiles: Bool
    private let hasColors: Bool
    /// Whether leaving curses brings back the shell's screen; without it (vt100) the screen is cleared at exit.
    private let hasAlternateScreen: Bool
    private var previous: CellCanvas<Target>?
    private var ended = false
    public let supportsUnicode: Bool
    /// Why the terminal can no longer be read, once it is so (see ``nextEvent(timeoutMilliseconds:)``).
    public private(set) var inputLost: String?
    /// Whether input was a terminal at the start (a headless screen reads /dev/null, which ends at once).
    private let inputIsTerminal: Bool
    /// Reads in a row that failed long before their timeout.
    private var quickFailures = 0

    /// Starts curses on the process's own terminal (standard input and output).
    /// Call `setlocale(LC_ALL, "")` first.
    public static func startOnProcessTerminal(environment: [String: String]) throws -> CursesTerminal {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalUnavailable(description: "the paywall needs a terminal, and standard input or output is not one")
        }
        let term = environment["TERM"] ?? ""
        guard !term.isEmpty else { throw TerminalUnavailable(description: "TERM is not set, so the terminal type is unknown") }
        guard term != "dumb" else {
            throw TerminalUnavailable(description: "TERM=dumb cannot move the cursor, so it cannot show the paywall")
        }
        // https://no-color.org: set and not empty means no colour; bold, reverse and dim stay.
        let colors = (environment["NO_COLOR"] ?? "").isEmpty
        return try CursesTerminal(term: term, input: cn_stdin(), output: cn_stdout(), ownsFiles: false, colors: colors)
    }

    /// Starts curses on the given streams; `term` names the terminal type.
    /// With `/dev/null` streams this is a headless screen for tests.
    /// `colors` false draws without colour (NO_COLOR), with the attributes only.
    public init(term: String, input: UnsafeMutablePointer<FILE>?, output: UnsafeMutablePointer<FILE>?,
                ownsFiles: Bool, colors: Bool = true) throws {
        guard let screen = newterm(term, output, input) else {
            if ownsFiles {
                fclose(input)
                fclose(output)
            }
            throw TerminalUnavailable(description: "the terminal type \"\(term)\" is unknown (no terminfo entry)")
        }
        self.screen = screen
        self.input = input
        self.output = output
        self.ownsFiles = ownsFiles
        inputIsTerminal = input.map { isatty(fileno($0)) == 1 } ?? false
        set_term(screen)
        window = cn_stdscr()
        supportsUnicode = cn_locale_is_utf8() != 0
        raw()  // Ctrl-C arrives as a key, so quitting always restores the terminal
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)
        // The cursor is hidden, so where it rests does not matter: no move back to it after each update.
        leaveok(window, true)
        mouseinterval(0)
        // The release is asked for too, and then ignored: an event outside the mask makes ncurses
        // wait for the next one without the timeout, so a click would stall the loop until a key.
        mousemask(cn_button1_clicked() | cn_wheel_up() | cn_wheel_down(), nil)
        hasColors = colors && has_colors()
        hasAlternateScreen = cn_has_alternate_screen() != 0
        if hasColors {
            start_color()
            use_default_colors()
            for (index, color) in Style.Color.allCases.enumerated() {
                init_pair(Int16(index + 1), Self.cursesColor(color), -1)
            }
        }
    }

    deinit { end() }

    /// Restores the terminal. Safe to call more than once.
    public func end() {
        guard !ended else { return }
        ended = true
        set_term(screen)
        if !hasAlternateScreen {
            // Nothing brings the shell's screen back: leave a clear one, the cursor at the top.
            werase(window)
            wmove(window, 0, 0)
            curs_set(1)
            wrefresh(window)
        }
        endwin()
        delscreen(screen)
        if ownsFiles {
            fclose(input)
            fclose(output)
        }
    }

    public var size: Size {
        Size(columns: Int(cn_maxx(window)), rows: Int(cn_maxy(window)))
    }

    /// Makes a headless screen a given size (tests).
    public func resize(to size: Size) {
        resizeterm(Int32(size.rows), Int32(size.columns))
        previous = nil
    }

    public func draw(_ canvas: CellCanvas<Target>) {
        if let previous, previous.width != canvas.width || previous.height != canvas.height {
            self.previous = nil
        }
        if previous == nil { werase(window) }
        let old = previous
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let cell = canvas[x, y]
                if let old, old[x, y] == cell { continue }
                // The right half of a wide character is drawn by its left half.
                guard !cell.text.isEmpty else { continue }
                var text = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
                text.append(0)
                _ = cn_put_cell(window, Int32(y), Int32(x), text, attributes(cell.style), pair(cell.style))
            }
        }
        previous = canvas
        wnoutrefresh(window)
        doupdate()
    }

    public func nextEvent(timeoutMilliseconds: Int, wake: Int32) -> TerminalEvent? {
        guard wake >= 0, timeoutMilliseconds > 0, inputIsTerminal, inputLost == nil, let input else {
            return nextEvent(timeoutMilliseconds: timeoutMilliseconds)
        }
        // A key ncurses already holds (the rest of an escape sequence it gave back) is not on the descriptor.
        wtimeout(window, 0)
        var code: wint_t = 0
        let status = wget_wch(window, &code)
        if status != ERR { return event(status: status, code: code) }
        var descriptors = [pollfd(fd: fileno(input), events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&descriptors, 2, Int32(clamping: timeoutMilliseconds))
        // Only the wake: back to the loop. A key, a hang-up, a timeout or a signal (a resize): as before.
        if ready > 0, descriptors[0].revents == 0 { return nil }
        return nextEvent(timeoutMilliseconds: descriptors[0].revents != 0 ? timeoutMilliseconds : 0)
    }

    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        wtimeout(window, Int32(timeoutMilliseconds))
        var code: wint_t = 0
        errno = 0
        let began = ContinuousClock.now
        let status = wget_wch(window, &code)
        if status == ERR {
            noteFailedRead(errno, after: ContinuousClock.now - began, timeoutMilliseconds: timeoutMilliseconds)
            return nil
        }
        quickFailures = 0
        return event(status: status, code: code)
    }

    /// The event a successful `wget_wch` read.
    private func event(status: Int32, code: wint_t) -> TerminalEvent? {
        if status == KEY_CODE_YES { return functionKey(Int32(code)) }
        switch code {
        case 10, 13: return .key(.enter)
        case 27: return .key(.escape)
        case 3: return .key(.interrupt)
        case 9: return .key(.tab)
        case 8, 127: return .key(.backspace)
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }

    /// A read that ended without a key is a timeout, unless the terminal is gone: reads fail with
    /// EIO (a process in the background, its terminal hung up or taken away: started under
    /// `timeout` from a script), or end at once, again and again (a hung-up terminal reads as its
    /// end). Either would have the loop spin at full speed for keys that cannot come.
    private func noteFailedRead(_ code: Int32, after elapsed: Duration, timeoutMilliseconds: Int) {
        guard inputIsTerminal, inputLost == nil, let input else { return }
        let quick = timeoutMilliseconds >= 5 && elapsed < .milliseconds(timeoutMilliseconds) / 2
        quickFailures = quick ? quickFailures + 1 : 0
        // Only reads that end at once, many in a row, and then only what the input says of itself:
        // a wait cut short by a signal, or errno left by something else ncurses did, is no verdict.
        guard quickFailures >= 20 else { return }
        quickFailures = 0
        var descriptor = pollfd(fd: fileno(input), events: Int16(POLLIN), revents: 0)
        let hungUp = poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        var byte: UInt8 = 0
        if hungUp {
            inputLost = "the terminal gives no more input (it hung up)"
        } else if code == EIO, descriptor.revents & Int16(POLLIN) != 0, read(fileno(input), &byte, 0) < 0, errno == EIO {
            inputLost = "the terminal cannot be read (\(String(cString: strerror(EIO))))"
        }
    }

    private func functionKey(_ code: Int32) -> TerminalEvent? {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_ENTER: return .key(.enter)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_RESIZE:
            previous = nil  // redraw everything at the new size
            return .resize(size)
        case KEY_MOUSE:
            var event = MEVENT()
            guard getmouse(&event) == OK else { return nil }
            if event.bstate & cn_button1_press_or_click() != 0 { return .click(x: Int(event.x), y: Int(event.y)) }
            if event.bstate & cn_wheel_up() != 0 { return .key(.up) }
            if cn_wheel_down() != 0, event.bstate & cn_wheel_down() != 0 { return .key(.down) }
            return nil
        default:
            return nil
        }
    }

    private func attributes(_ style: Style) -> attr_t {
        var attributes = cn_a_normal()
        if style.bold { attributes |= cn_a_bold() }
        if style.reverse { attributes |= cn_a_reverse() }
        if style.dim { attributes |= cn_a_dim() }
        if style.underline { attributes |= cn_a_underline() }
        return attributes
    }

    private func pair(_ style: Style) -> Int16 {
        guard hasColors, let color = style.color, let index = Style.Color.allCases.firstIndex(of: color) else { return 0 }
        return Int16(index + 1)
    }

    private static func cursesColor(_ color: Style.Color) -> Int16 {
        switch color {
        case .green: Int16(COLOR_GREEN)
        case .yellow: Int16(COLOR_YELLOW)
        case .red: Int16(COLOR_RED)
        case .cyan: Int16(COLOR_CYAN)
        }
    }

    // MARK: - Reading the screen back (tests)

    /// The text ncurses holds for row `y` of the screen, trailing spaces trimmed.
    public func line(_ y: Int) -> String {
        var buffer = [wchar_t](repeating: 0, count: Int(cn_maxx(window)) + 1)
        let count = mvwinnwstr(window, Int32(y), 0, &buffer, Int32(buffer.count - 1))
        guard count != ERR else { return "" }
        var text = String(String.UnicodeScalarView(buffer.prefix { $0 != 0 }.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }))
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Whether the cell at (x, y) is drawn in reverse video.
    public func isReverse(x: Int, y: Int) -> Bool {
        var cell = cchar_t()
        guard mvwin_wch(window, Int32(y), Int32(x), &cell) != ERR else { return false }
        return cell.attr & cn_a_reverse() != 0
    }
}
