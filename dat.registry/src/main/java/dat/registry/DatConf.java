// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.Dat;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A static registry file in uDAPL's {@code dat.conf} format, parsed without side effects.
 *
 * <p>One entry per line, eight whitespace-separated fields:
 * <pre>
 * # ia_name   api_version thread_safety default  library  provider_version ia_params platform_params
 * loopback0   u1.2        threadsafe    default  loopback dapl.1.2         ""        ""
 * ofa-v2-ib0  u1.2        nonthreadsafe nondefault my.vendor.VerbsProvider dapl.1.2 "mlx5_0 1" ""
 * </pre>
 * <ul>
 *   <li>{@code api_version}: {@code u} (uDAPL) or {@code k} (kDAPL), then {@code major.minor}; only major
 *       version 1 is accepted, since jDAT implements DAT 1.2.
 *   <li>{@code thread_safety}: {@code threadsafe} or {@code nonthreadsafe}; {@code default}: {@code default} or
 *       {@code nondefault}.
 *   <li>library: where uDAPL names a shared object, jDAT names a provider, either by its
 *       {@link dat.spi.DatProvider#name()} or by the fully qualified name of a class implementing it.
 *   <li>{@code provider_version}: {@code <id>.<major>.<minor>}, for example {@code dapl.1.2}.
 *   <li>{@code #} starts a comment that runs to the end of the line, except inside quotes. A field may be
 *       double-quoted to hold spaces or {@code #}; inside quotes {@code \\} and {@code \"} are the only
 *       escapes, and {@code ""} is an empty field. Outside quotes a backslash is an ordinary character, so
 *       Windows-style paths need no quoting.
 * </ul>
 *
 * <p>A malformed line is skipped and reported as a {@link Diagnostic} naming the file, the line and the fault;
 * a later entry with an IA name already seen is reported too and loses to the first, as in uDAPL's
 * {@code dat_sr_insert}. Parsing never throws for bad content, so one typo cannot hide the other entries.
 *
 * @param fileName the name diagnostics use for the file
 * @param entries the valid entries, in file order, IA names unique
 * @param diagnostics what was wrong, in file order
 */
public record DatConf(String fileName, List<Entry> entries, List<Diagnostic> diagnostics) {

    /** The longest IA name DAT allows ({@code DAT_NAME_MAX_LENGTH}). */
    public static final int IA_NAME_MAX_LENGTH = 256;

    /** Number of fields of an entry line. */
    private static final int FIELD_COUNT = 8;

    /** Makes the lists immutable. */
    public DatConf {
        Objects.requireNonNull(fileName, "fileName");
        entries = List.copyOf(entries);
        diagnostics = List.copyOf(diagnostics);
    }

    /**
     * One valid line of the file.
     *
     * @param iaName the IA name {@code dat_ia_open} takes
     * @param apiVersion the DAT API the entry was written for; {@link Version#id()} is {@code u} or {@code k}
     * @param threadSafe {@code threadsafe} rather than {@code nonthreadsafe}
     * @param isDefault {@code default} rather than {@code nondefault}
     * @param library the provider name or provider class name
     * @param providerVersion the provider version, for example {@code dapl.1.2}
     * @param iaParams the {@code ia_params} field, passed to the provider
     * @param platformParams the {@code platform_params} field
     * @param line the 1-based line number the entry came from
     */
    @SuppressWarnings("InvalidParam") // "threadsafe" above is dat.conf's keyword, not a misspelt threadSafe
    public record Entry(String iaName, Version apiVersion, boolean threadSafe, boolean isDefault, String library,
                        Version providerVersion, String iaParams, String platformParams, int line) {

        /** Checks that nothing is null. */
        public Entry {
            Objects.requireNonNull(iaName, "iaName");
            Objects.requireNonNull(apiVersion, "apiVersion");
            Objects.requireNonNull(library, "library");
            Objects.requireNonNull(providerVersion, "providerVersion");
            Objects.requireNonNull(iaParams, "iaParams");
            Objects.requireNonNull(platformParams, "platformParams");
        }

        /** {@return whether the entry is for kDAPL (kernel consumers), which a Java process cannot use} */
        public boolean isKernel() {
            return apiVersion.id().equals("k");
        }
    }

    /**
     * A version as {@code dat.conf} writes it: {@code u1.2} for an API version, {@code dapl.1.2} for a
     * provider version.
     *
     * @param id {@code u}/{@code k} for an API version, the provider id otherwise
     * @param major the major version
     * @param minor the minor version
     */
    public record Version(String id, int major, int minor) {

        /** Checks that nothing is null. */
        public Version {
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * A problem found in the file; the line it concerns was skipped.
     *
     * @param fileName the file
     * @param line the 1-based line number
     * @param message what is wrong
     */
    public record Diagnostic(String fileName, int line, String message) {

        /** Checks that nothing is null. */
        public Diagnostic {
            Objects.requireNonNull(fileName, "fileName");
            Objects.requireNonNull(message, "message");
        }

        /** {@return {@code file:line: message}, the form compilers use so editors can jump to it} */
        @Override
        public String toString() {
            return fileName + ":" + line + ": " + message;
        }
    }

    /**
     * Parses a whole file. Line ends may be {@code \n}, {@code \r\n} or {@code \r}.
     *
     * @param fileName the name to use in diagnostics, usually the path
     * @param reader the content; read to the end, not closed
     * @return the entries and diagnostics
     * @throws UncheckedIOException when reading fails
     */
    public static DatConf parse(String fileName, Reader reader) {
        Objects.requireNonNull(fileName, "fileName");
        BufferedReader lines = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<Entry> entries = new ArrayList<>();
        List<Diagnostic> diagnostics = new ArrayList<>();
        Map<String, Integer> firstLineOfIa = new HashMap<>();
        try {
            int lineNumber = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                lineNumber++;
                try {
                    Entry entry = parseLine(line, lineNumber);
                    if (entry == null) {
                        continue;
                    }
                    Integer first = firstLineOfIa.putIfAbsent(entry.iaName(), lineNumber);
                    if (first != null) {
                        diagnostics.add(new Diagnostic(fileName, lineNumber, "duplicate IA name " + entry.iaName()
                                + ": already defined on line " + first + "; this entry is ignored"));
                    } else {
                        entries.add(entry);
                    }
                } catch (LineException e) {
                    diagnostics.add(new Diagnostic(fileName, lineNumber, e.getMessage() + "; line skipped"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + fileName, e);
        }
        return new DatConf(fileName, entries, diagnostics);
    }

    /** {@return the entry of the line, or {@code null} for a blank or comment-only line} */
    private static Entry parseLine(String line, int lineNumber) throws LineException {
        List<String> fields = splitFields(line);
        if (fields.isEmpty()) {
            return null;
        }
        if (fields.size() != FIELD_COUNT) {
            throw new LineException("expected " + FIELD_COUNT + " fields (ia_name api_version thread_safety default"
                    + " library provider_version ia_params platform_params) but found " + fields.size());
        }
        String iaName = fields.get(0);
        if (iaName.isEmpty()) {
            throw new LineException("empty ia_name");
        }
        if (iaName.length() > IA_NAME_MAX_LENGTH) {
            throw new LineException("ia_name is " + iaName.length() + " characters long; at most "
                    + IA_NAME_MAX_LENGTH + " are allowed");
        }
        Version api = parseApiVersion(fields.get(1));
        boolean threadSafe = keyword(fields.get(2), "thread_safety", "threadsafe", "nonthreadsafe");
        boolean isDefault = keyword(fields.get(3), "default", "default", "nondefault");
        String library = fields.get(4);
        if (library.isEmpty()) {
            throw new LineException("empty library (provider name or class)");
        }
        Version providerVersion = parseProviderVersion(fields.get(5));
        return new Entry(iaName, api, threadSafe, isDefault, library, providerVersion, fields.get(6), fields.get(7),
                lineNumber);
    }

    /**
     * Splits a line into fields, honouring quotes and dropping the comment.
     *
     * <p>A quote only opens a field; one inside an unquoted field, or text glued to a closing quote, is an error
     * rather than a guess, because uDAPL's own parser disagrees with shells on such input.
     */
    private static List<String> splitFields(String line) throws LineException {
        List<String> fields = new ArrayList<>(FIELD_COUNT);
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && isBlank(line.charAt(i))) {
                i++;
            }
            if (i == n || line.charAt(i) == '#') {
                return fields;
            }
            StringBuilder field = new StringBuilder();
            if (line.charAt(i) == '"') {
                int open = i++;
                while (true) {
                    if (i == n) {
                        throw new LineException("unterminated quote opened at column " + (open + 1));
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (i == n) {
                            throw new LineException("unterminated quote opened at column " + (open + 1));
                        }
                        char escaped = line.charAt(i++);
                        if (escaped != '\\' && escaped != '"') {
                            throw new LineException("bad escape \\" + escaped + " at column " + (i - 1)
                                    + ": only \\\\ and \\\" are allowed inside quotes");
                        }
                        c = escaped;
                    }
                    field.append(c);
                }
                if (i < n && !isBlank(line.charAt(i)) && line.charAt(i) != '#') {
                    throw new LineException("unexpected '" + line.charAt(i) + "' at column " + (i + 1)
                            + " after a closing quote; separate fields with whitespace");
                }
            } else {
                while (i < n && !isBlank(line.charAt(i)) && line.charAt(i) != '#') {
                    if (line.charAt(i) == '"') {
                        throw new LineException("unexpected quote at column " + (i + 1)
                                + " inside an unquoted field; quote the whole field");
                    }
                    field.append(line.charAt(i++));
                }
            }
            fields.add(field.toString());
        }
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\f' || c == '\u000b';
    }

    private static boolean keyword(String value, String field, String yes, String no) throws LineException {
        if (value.equals(yes)) {
            return true;
        }
        if (value.equals(no)) {
            return false;
        }
        throw new LineException("bad " + field + " '" + value + "': expected " + yes + " or " + no);
    }

    private static Version parseApiVersion(String text) throws LineException {
        String expected = "expected u or k then major.minor, for example u1.2";
        if (text.isEmpty() || (text.charAt(0) != 'u' && text.charAt(0) != 'k')) {
            throw new LineException("bad api_version '" + text + "': " + expected);
        }
        int[] numbers = majorMinor(text.substring(1));
        if (numbers == null) {
            throw new LineException("bad api_version '" + text + "': " + expected);
        }
        if (numbers[0] != Dat.DAT_VERSION_MAJOR) {
            throw new LineException("api_version " + text + " is not supported: jDAT implements DAT "
                    + Dat.DAT_VERSION_MAJOR + "." + Dat.DAT_VERSION_MINOR);
        }
        return new Version(text.substring(0, 1), numbers[0], numbers[1]);
    }

    private static Version parseProviderVersion(String text) throws LineException {
        int dot = text.indexOf('.');
        int[] numbers = dot > 0 ? majorMinor(text.substring(dot + 1)) : null;
        if (numbers == null) {
            throw new LineException("bad provider_version '" + text
                    + "': expected <id>.<major>.<minor>, for example dapl.1.2");
        }
        return new Version(text.substring(0, dot), numbers[0], numbers[1]);
    }

    /** {@return {@code {major, minor}} of {@code "1.2"}, or {@code null} when it is not two decimal numbers} */
    private static int[] majorMinor(String text) {
        int dot = text.indexOf('.');
        if (dot < 0) {
            return null;
        }
        String major = text.substring(0, dot);
        String minor = text.substring(dot + 1);
        if (!isSmallNumber(major) || !isSmallNumber(minor)) {
            return null;
        }
        return new int[] {Integer.parseInt(major), Integer.parseInt(minor)};
    }

    private static boolean isSmallNumber(String text) {
        // Nine digits always fit an int, and no real version needs more.
        if (text.isEmpty() || text.length() > 9) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** What is wrong with one line; never escapes {@link #parse}. */
    private static final class LineException extends Exception {
        private static final long serialVersionUID = 1L;

        LineException(String message) {
            super(message, null, false, false);
        }
    }
}
