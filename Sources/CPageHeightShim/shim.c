#define _GNU_SOURCE // process_madvise
#include <X11/Xlib.h>
#include <unistd.h>
#include "PageHeightShim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

WebKitWebView *ph_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW,
                                        "web-context", context,
                                        "user-content-manager", manager,
                                        "is-ephemeral", TRUE,
                                        NULL));
}

WebKitWebContext *ph_web_context_new(guint limit_mb, double poll_seconds, const char *directory) {
    WebKitWebsiteDataManager *manager = webkit_website_data_manager_new("base-data-directory", directory,
                                                                        "base-cache-directory", directory, NULL);
    WebKitMemoryPressureSettings *pressure = webkit_memory_pressure_settings_new();
    webkit_memory_pressure_settings_set_memory_limit(pressure, limit_mb);
    webkit_memory_pressure_settings_set_kill_threshold(pressure, 1.0); // 0, the default, never kills
    webkit_memory_pressure_settings_set_poll_interval(pressure, poll_seconds);
    WebKitWebContext *context = WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT,
                                                                "website-data-manager", manager,
                                                                "memory-pressure-settings", pressure,
                                                                NULL));
    webkit_memory_pressure_settings_free(pressure);
    g_object_unref(manager);
    return context;
}

typedef struct {
    ph_navigation_fn fn;
    gpointer data;
    GClosureNotify destroy;
} NavigationTarget;

static gboolean navigation_decided(WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type,
                                   gpointer user_data) {
    (void)view;
    if (type != WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION) return FALSE;
    NavigationTarget *target = user_data;
    WebKitNavigationAction *action =
        webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
    WebKitURIRequest *request = action ? webkit_navigation_action_get_request(action) : NULL;
    const char *uri = request ? webkit_uri_request_get_uri(request) : NULL;
    if (uri) target->fn(uri, target->data);
    return FALSE; // WebKit decides as usual
}

static void navigation_target_free(gpointer data, GClosure *closure) {
    NavigationTarget *target = data;
    if (target->destroy) target->destroy(target->data, closure);
    g_free(target);
}

gulong ph_connect_navigation_targets(WebKitWebView *view, ph_navigation_fn fn, gpointer data, GClosureNotify destroy) {
    NavigationTarget *target = g_new0(NavigationTarget, 1);
    target->fn = fn;
    target->data = data;
    target->destroy = destroy;
    return g_signal_connect_data(view, "decide-policy", G_CALLBACK(navigation_decided), target,
                                 navigation_target_free, 0);
}

gulong ph_connect_load_changed(WebKitWebView *view, ph_load_changed_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "load-changed", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_load_failed(WebKitWebView *view, ph_load_failed_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "load-failed", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_process_terminated(WebKitWebView *view, ph_process_terminated_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "web-process-terminated", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_script_dialog(WebKitWebView *view, ph_script_dialog_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "script-dialog", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_create(WebKitWebView *view, ph_create_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "create", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_print(WebKitWebView *view, ph_print_fn fn, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(view, "print", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_resource_load_started(WebKitWebView *view, ph_resource_started_fn fn, gpointer data,
                                        GClosureNotify destroy) {
    return g_signal_connect_data(view, "resource-load-started", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_resource_finished(WebKitWebResource *resource, ph_resource_finished_fn fn, gpointer data,
                                    GClosureNotify destroy) {
    return g_signal_connect_data(resource, "finished", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_resource_failed(WebKitWebResource *resource, ph_resource_failed_fn fn, gpointer data,
                                  GClosureNotify destroy) {
    return g_signal_connect_data(resource, "failed", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_script_message(WebKitUserContentManager *manager, const char *name, ph_script_message_fn fn,
                                  gpointer data, GClosureNotify destroy) {
    gchar *signal = g_strconcat("script-message-received::", name, NULL);
    gulong id = g_signal_connect_data(manager, signal, G_CALLBACK(fn), data, destroy, 0);
    g_free(signal);
    return id;
}

SoupServer *ph_server_new(const char *server_header) {
    return SOUP_SERVER(g_object_new(SOUP_TYPE_SERVER, "server-header", server_header, NULL));
}

gulong ph_connect_server_message_finished(SoupServerMessage *msg, ph_server_message_fn fn, gpointer data,
                                          GClosureNotify destroy) {
    return g_signal_connect_data(msg, "finished", G_CALLBACK(fn), data, destroy, 0);
}

gulong ph_connect_server_message_got_chunk(SoupServerMessage *msg, ph_server_chunk_fn fn, gpointer data,
                                           GClosureNotify destroy) {
    return g_signal_connect_data(msg, "got-chunk", G_CALLBACK(fn), data, destroy, 0);
}

typedef struct {
    gpointer fn;
    gpointer data;
    gchar *path;
} Pending;

static Pending *pending_new(gpointer fn, gpointer data, const char *path) {
    Pending *p = g_new0(Pending, 1);
    p->fn = fn;
    p->data = data;
    p->path = g_strdup(path);
    return p;
}

static void pending_free(Pending *p) {
    g_free(p->path);
    g_free(p);
}

static gchar *describe_error(const GError *error) {
    return g_strdup_printf("%s (%s %d)", error->message, g_quark_to_string(error->domain), error->code);
}

static void evaluated(GObject *source, GAsyncResult *result, gpointer user_data) {
    Pending *p = user_data;
    GError *error = NULL;
    JSCValue *value = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    gchar *json = NULL;
    gchar *message = NULL;
    if (value) {
        // A string comes back as its text (the probe's readings are JSON text already);
        // any other value as JSON.
        json = jsc_value_is_string(value) ? jsc_value_to_string(value) : jsc_value_to_json(value, 0);
        if (!json) json = g_strdup("null");
        g_object_unref(value);
    } else {
        message = error ? describe_error(error) : g_strdup("no result");
    }
    ((ph_evaluated_fn)p->fn)(json, message, p->data);
    g_free(json);
    g_free(message);
    g_clear_error(&error);
    pending_free(p);
}

void ph_evaluate(WebKitWebView *view, const char *script, const char *world_name, GCancellable *cancellable,
                 ph_evaluated_fn fn, gpointer data) {
    webkit_web_view_evaluate_javascript(view, script, -1, world_name, NULL, cancellable, evaluated,
                                        pending_new((gpointer)fn, data, NULL));
}

static void snapshotted(GObject *source, GAsyncResult *result, gpointer user_data) {
    Pending *p = user_data;
    GError *error = NULL;
    gchar *message = NULL;
    cairo_surface_t *surface = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (surface) {
        cairo_status_t status = cairo_surface_write_to_png(surface, p->path);
        if (status != CAIRO_STATUS_SUCCESS)
            message = g_strdup_printf("could not write %s: %s", p->path, cairo_status_to_string(status));
        cairo_surface_destroy(surface);
    } else {
        message = error ? describe_error(error) : g_strdup("no snapshot");
    }
    ((ph_done_fn)p->fn)(message, p->data);
    g_free(message);
    g_clear_error(&error);
    pending_free(p);
}

void ph_snapshot_png(WebKitWebView *view, const char *path, GCancellable *cancellable, ph_done_fn fn, gpointer data) {
    webkit_web_view_get_snapshot(view, WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT, WEBKIT_SNAPSHOT_OPTIONS_NONE,
                                 cancellable, snapshotted, pending_new((gpointer)fn, data, path));
}

static void resource_read(GObject *source, GAsyncResult *result, gpointer user_data) {
    Pending *p = user_data;
    GError *error = NULL;
    gsize length = 0;
    guchar *bytes = webkit_web_resource_get_data_finish(WEBKIT_WEB_RESOURCE(source), result, &length, &error);
    gchar *message = bytes ? NULL : (error ? describe_error(error) : g_strdup("no data"));
    ((ph_data_fn)p->fn)(bytes, length, message, p->data);
    g_free(bytes);
    g_free(message);
    g_clear_error(&error);
    pending_free(p);
}

void ph_main_resource_data(WebKitWebView *view, GCancellable *cancellable, ph_data_fn fn, gpointer data) {
    WebKitWebResource *resource = webkit_web_view_get_main_resource(view);
    if (!resource) {
        fn(NULL, 0, "the page has no main resource", data);
        return;
    }
    webkit_web_resource_get_data(resource, cancellable, resource_read, pending_new((gpointer)fn, data, NULL));
}

static void website_data_cleared(GObject *source, GAsyncResult *result, gpointer user_data) {
    Pending *pending = user_data;
    GError *error = NULL;
    gchar *message = NULL;
    if (!webkit_website_data_manager_clear_finish(WEBKIT_WEBSITE_DATA_MANAGER(source), result, &error)) {
        message = describe_error(error);
        g_error_free(error);
    }
    ((ph_done_fn)pending->fn)(message, pending->data);
    g_free(message);
    pending_free(pending);
}

void ph_web_view_clear_website_data(WebKitWebView *view, WebKitWebsiteDataTypes types, ph_done_fn fn, gpointer data) {
    webkit_website_data_manager_clear(webkit_web_view_get_website_data_manager(view), types, 0, NULL,
                                      website_data_cleared, pending_new((gpointer)fn, data, NULL));
}

static void cookie_added(GObject *source, GAsyncResult *result, gpointer user_data) {
    Pending *p = user_data;
    GError *error = NULL;
    gboolean added = webkit_cookie_manager_add_cookie_finish(WEBKIT_COOKIE_MANAGER(source), result, &error);
    gchar *message = added ? NULL : (error ? describe_error(error) : g_strdup("not added"));
    ((ph_done_fn)p->fn)(message, p->data);
    g_free(message);
    g_clear_error(&error);
    pending_free(p);
}

void ph_web_view_add_cookie(WebKitWebView *view, const char *name, const char *value, const char *domain,
                            const char *path, gboolean secure, gboolean http_only, gint64 expires,
                            gboolean same_site_lax, ph_done_fn fn, gpointer data) {
    SoupCookie *cookie = soup_cookie_new(name, value, domain, path, -1);
    soup_cookie_set_secure(cookie, secure);
    soup_cookie_set_http_only(cookie, http_only);
    if (same_site_lax) soup_cookie_set_same_site_policy(cookie, SOUP_SAME_SITE_POLICY_LAX);
    if (expires > 0) {
        GDateTime *when = g_date_time_new_from_unix_utc(expires);
        soup_cookie_set_expires(cookie, when);
        g_date_time_unref(when);
    }
    WebKitCookieManager *manager = webkit_website_data_manager_get_cookie_manager(webkit_web_view_get_website_data_manager(view));
    webkit_cookie_manager_add_cookie(manager, cookie, NULL, cookie_added, pending_new((gpointer)fn, data, NULL));
    soup_cookie_free(cookie);
}

void ph_web_view_load_with_headers(WebKitWebView *view, const char *uri, const char *const *names,
                                   const char *const *values, int count) {
    WebKitURIRequest *request = webkit_uri_request_new(uri);
    SoupMessageHeaders *headers = webkit_uri_request_get_http_headers(request);
    for (int i = 0; headers && i < count; i++) soup_message_headers_append(headers, names[i], values[i]);
    webkit_web_view_load_request(view, request);
    g_object_unref(request);
}

void ph_web_context_route_through_proxy(WebKitWebContext *context, const char *proxy_uri) {
    static const char *const loopback[] = {"localhost", "127.0.0.0/8", "::1", NULL};
    WebKitNetworkProxySettings *settings = webkit_network_proxy_settings_new(proxy_uri, loopback);
    webkit_website_data_manager_set_network_proxy_settings(webkit_web_context_get_website_data_manager(context),
                                                           WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings);
    webkit_network_proxy_settings_free(settings);
}

static int confine_child(const char *path);

pid_t ph_spawn_tied(char *const argv[], int stdout_fd, int stderr_fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid; // parent: child's pid, or -1 with errno
    // Child: only async-signal-safe calls from here on. The signal mask and ignored signals
    // survive exec: unblock and reset them, or the child cannot be stopped with SIGTERM.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int signo = 1; signo < NSIG; signo++) {
        if (signo != SIGKILL && signo != SIGSTOP) signal(signo, SIG_DFL);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127); // the parent died before prctl took effect
    if (stdout_fd >= 0 && stdout_fd != STDOUT_FILENO) dup2(stdout_fd, STDOUT_FILENO);
    if (stderr_fd >= 0 && stderr_fd != STDERR_FILENO) dup2(stderr_fd, STDERR_FILENO);
    setpgid(0, 0); // its own process group: a terminal's ^C reaches us, and we stop it ourselves
    if (confine_child(argv[0]) != 0) _exit(127);
    execvp(argv[0], argv);
    _exit(127);
}

pid_t ph_spawn_engine_process(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                              int message_fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    // Child: only async-signal-safe calls from here on (as in ph_spawn_tied).
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int signo = 1; signo < NSIG; signo++) {
        if (signo != SIGKILL && signo != SIGSTOP) signal(signo, SIG_DFL);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    // Descriptor 3 first: stdin_fd or stdout_fd may be 3 itself, and each dup2 leaves the source open.
    int message = message_fd == 3 ? 3 : fcntl(message_fd, F_DUPFD_CLOEXEC, 10);
    if (stdin_fd != STDIN_FILENO) dup2(stdin_fd, STDIN_FILENO);
    if (stdout_fd != STDOUT_FILENO) dup2(stdout_fd, STDOUT_FILENO);
    if (message != 3) dup2(message, 3); // dup2 clears close-on-exec on its copy
    else fcntl(3, F_SETFD, 0);
    setpgid(0, 0); // a terminal's ^C reaches the supervisor, which stops this process itself
    execve(path, argv, envp);
    _exit(127);
}

typedef struct {
    WebKitUserContentFilterStore *store;
    PhFilterSaved done;
    void *data;
} FilterCompilation;

static void filter_saved(GObject *source, GAsyncResult *result, gpointer data) {
    FilterCompilation *compilation = data;
    GError *error = NULL;
    WebKitUserContentFilter *filter =
        webkit_user_content_filter_store_save_finish(WEBKIT_USER_CONTENT_FILTER_STORE(source), result, &error);
    char *reason = filter ? NULL : (error ? describe_error(error) : g_strdup("no filter"));
    compilation->done(filter, reason, compilation->data);
    g_free(reason);
    g_clear_error(&error);
    g_object_unref(compilation->store);
    g_free(compilation);
}

void ph_save_content_filter(const char *directory, const char *identifier, const char *json, PhFilterSaved done,
                            void *data) {
    FilterCompilation *compilation = g_new0(FilterCompilation, 1);
    compilation->store = webkit_user_content_filter_store_new(directory);
    compilation->done = done;
    compilation->data = data;
    GBytes *source = g_bytes_new(json, strlen(json));
    webkit_user_content_filter_store_save(compilation->store, identifier, source, NULL, filter_saved, compilation);
    g_bytes_unref(source);
}

static gboolean skip_drawing(GtkWidget *widget, cairo_t *cr, gpointer data) {
    (void)widget; (void)cr; (void)data;
    return TRUE; // handled: GTK draws nothing of the window's children
}

void ph_window_skip_drawing(GtkWidget *window) {
    g_signal_connect(window, "draw", G_CALLBACK(skip_drawing), NULL);
    // Nor does GDK process its updates: each one allocated and cleared a buffer as large as
    // the window (25 MB for a 16384 px view) only for the draw handler to ignore it.
    GdkWindow *gdk = gtk_widget_get_window(window);
    if (gdk) gdk_window_freeze_updates(gdk);
}

void ph_ui_process_without_egl(void) {
    // libEGL.so.1 is loaded with WebKit (a dependency); libepoxy, through which WebKit calls EGL,
    // opens the same one.
    typedef const char *(*query_string_fn)(void *display, int name);
    query_string_fn query_string = (query_string_fn)dlsym(RTLD_DEFAULT, "eglQueryString");
    if (!query_string) return;
    const char *name = "__EGL_VENDOR_LIBRARY_FILENAMES";
    char *saved = getenv(name) ? strdup(getenv(name)) : NULL;
    setenv(name, "/nonexistent/pageheight-no-egl-vendor.json", 1);
    query_string(NULL /* EGL_NO_DISPLAY */, 0x3055 /* EGL_EXTENSIONS: loads the vendor list */);
    if (saved) {
        setenv(name, saved, 1);
        free(saved);
    } else {
        unsetenv(name);
    }
}

// WebKit reads its switch for the C library's malloc, `Malloc=1`, at its allocator's first use,
// in libwebkit2gtk's initialisers, before main: a process that wants it must start again with it
// in its environment. Whether to is the program's decision (main.swift); this is the mechanism.
// The constructor of the second start, which runs after the libraries' initialisers, takes the
// switch out of the environment again, so that the processes started later (WebKit's web and
// network processes) keep libpas.

// Set by the second start's constructor, which takes the switch out of the environment.
static int restarted_with_system_malloc = 0;

void ph_restart_with_system_malloc(char **argv) {
    if (restarted_with_system_malloc) return;
    if (getenv("Malloc")) return; // set by the user: left alone, for every process
    // By its own path, not /proc/self/exe, so that the process keeps its name.
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) return; // no /proc: this start goes on, with libpas
    path[length] = '\0';
    setenv("Malloc", "1", 1);
    setenv(PH_SYSTEM_MALLOC_MARK, "1", 1);
    execv(path, argv); // returns only on failure: this start goes on, with libpas
    unsetenv(PH_SYSTEM_MALLOC_MARK);
    unsetenv("Malloc");
}

__attribute__((constructor))
static void forget_system_malloc_switch(void) {
    if (!getenv(PH_SYSTEM_MALLOC_MARK)) return;
    restarted_with_system_malloc = 1;
    unsetenv(PH_SYSTEM_MALLOC_MARK);
    unsetenv("Malloc");
}

long ph_page_out(pid_t pid, const uintptr_t *starts, const size_t *lengths, int count) {
    if (count < 0) return -EINVAL;
    int pidfd = pidfd_open(pid, 0);
    if (pidfd < 0) return -errno;
    long total = 0;
    for (int first = 0; first < count; first += 64) { // 64 ranges a call, on the stack
        struct iovec ranges[64];
        int n = count - first < 64 ? count - first : 64;
        for (int i = 0; i < n; i++) {
            ranges[i].iov_base = (void *)starts[first + i];
            ranges[i].iov_len = lengths[first + i];
        }
        ssize_t advised = process_madvise(pidfd, ranges, (size_t)n, MADV_PAGEOUT, 0);
        if (advised < 0) {
            total = -errno;
            break;
        }
        total += (long)advised;
    }
    close(pidfd);
    return total;
}

typedef struct {
    GSource source;
    int fd;
} PreciseTimeout;

static gboolean precise_dispatch(GSource *source, GSourceFunc callback, gpointer data) {
    (void)source;
    return callback ? callback(data) : G_SOURCE_REMOVE;
}

static void precise_finalize(GSource *source) {
    close(((PreciseTimeout *)source)->fd);
}

static GSourceFuncs precise_timeout_funcs = {NULL, NULL, precise_dispatch, precise_finalize, NULL, NULL};

guint ph_timeout_add_precise(gint64 microseconds, GSourceFunc fn, gpointer data, GDestroyNotify destroy) {
    if (microseconds < 1) microseconds = 1; // an all-zero it_value disarms a timerfd
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return g_timeout_add_full(G_PRIORITY_DEFAULT, (guint)((microseconds + 999) / 1000), fn, data, destroy);
    struct itimerspec when = {{0, 0}, {(time_t)(microseconds / 1000000), (long)(microseconds % 1000000) * 1000}};
    timerfd_settime(fd, 0, &when, NULL);
    GSource *source = g_source_new(&precise_timeout_funcs, sizeof(PreciseTimeout));
    ((PreciseTimeout *)source)->fd = fd;
    g_source_add_unix_fd(source, fd, G_IO_IN); // ready once the timer expired: GLib's own check
    g_source_set_callback(source, fn, data, destroy);
    guint id = g_source_attach(source, NULL);
    g_source_unref(source);
    return id;
}

int ph_prioritize_thread(int nice) {
    struct sched_param normal = {0};
    // First the flag, so that no child can inherit the negative value.
    if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &normal) != 0) return -errno;
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), nice) != 0) return -errno;
    return 0;
}

// The processes WebKit starts (its network process, bubblewrap and the web processes in it, its
// D-Bus proxy), recognised by their program's name: they start confined; no other does.
static int is_engine_helper(const char *path) {
    if (!path) return 0;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    return strcmp(name, "bwrap") == 0 || strcmp(name, "xdg-dbus-proxy") == 0
        || (strncmp(name, "WebKit", 6) == 0 && strlen(name) > 13 && strcmp(name + strlen(name) - 7, "Process") == 0);
}

// What a WebKit helper process starts with, set once the engine knows (`ph_confine_children`,
// `ph_jail_children`), read in forked children: plain words.
static volatile int children_confined = 0;
static volatile unsigned long long children_keep = 0;
static volatile int children_namespace = -1;

static int narrow_bounding_set(unsigned long long keep) {
    for (int capability = 0; capability < 64; capability++) {
        if (keep & (1ULL << capability)) continue;
        int present = prctl(PR_CAPBSET_READ, capability, 0, 0, 0);
        if (present < 0) break; // past the kernel's last capability
        if (present == 0) continue;
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) return -1;
    }
    return 0;
}

// In a child about to exec `path`: async-signal-safe calls only. Returns 0, or -1 (errno set).
static int confine_child(const char *path) {
    if (!is_engine_helper(path)) return 0;
    if (children_namespace >= 0 && syscall(SYS_setns, children_namespace, CLONE_NEWNS) != 0) return -1;
    if (children_confined && narrow_bounding_set(children_keep) != 0) return -1;
    return 0;
}

// The program's own `execve`: a library's fork-and-exec (GLib's, without posix_spawn) calls it
// by name, and the program's definition is the one the dynamic linker binds it to.
int execve(const char *path, char *const argv[], char *const envp[]) {
    if (confine_child(path) != 0) return -1;
    return (int)syscall(SYS_execve, path, argv, envp);
}

// GLib starts WebKit's processes with posix_spawn, whose child inherits the calling thread's
// mount namespace and capability bounding set and runs nothing of ours before its exec. So the
// spawns of WebKit's helpers are handed to a thread of their own, the spawner, which narrows its
// bounding set once and enters the file jail once: its children start in both. The caller waits.
typedef int (*spawn_function)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                              char *const[], char *const[]);
typedef struct {
    int kind; // 0 posix_spawn, 1 posix_spawnp, 2 enter the mount namespace `namespace_fd`
    pid_t *pid;
    const char *path;
    const posix_spawn_file_actions_t *actions;
    const posix_spawnattr_t *attributes;
    char *const *argv;
    char *const *envp;
    int namespace_fd;
    int result;
    int done;
} spawn_request;

static pthread_mutex_t spawner_callers = PTHREAD_MUTEX_INITIALIZER; // one request at a time
static pthread_mutex_t spawner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawner_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t spawner_answered = PTHREAD_COND_INITIALIZER;
static spawn_request *spawner_request = NULL;
static pthread_t spawner;
static int spawner_running = 0;

static spawn_function real_function(const char *name) {
    return (spawn_function)dlsym(RTLD_NEXT, name);
}

static void *spawner_main(void *unused) {
    (void)unused;
    narrow_bounding_set(children_keep);
    for (;;) {
        pthread_mutex_lock(&spawner_lock);
        while (!spawner_request) pthread_cond_wait(&spawner_wake, &spawner_lock);
        spawn_request *request = spawner_request;
        spawner_request = NULL;
        pthread_mutex_unlock(&spawner_lock);
        if (request->kind == 2) {
            request->result = unshare(CLONE_FS) == 0 && setns(request->namespace_fd, CLONE_NEWNS) == 0 ? 0 : errno;
        } else {
            spawn_function spawn = real_function(request->kind == 0 ? "posix_spawn" : "posix_spawnp");
            request->result = spawn ? spawn(request->pid, request->path, request->actions, request->attributes,
                                            request->argv, request->envp) : ENOSYS;
        }
        pthread_mutex_lock(&spawner_lock);
        request->done = 1;
        pthread_cond_broadcast(&spawner_answered);
        pthread_mutex_unlock(&spawner_lock);
    }
    return NULL;
}

static int hand_to_spawner(spawn_request *request) {
    pthread_mutex_lock(&spawner_callers);
    pthread_mutex_lock(&spawner_lock);
    spawner_request = request;
    pthread_cond_signal(&spawner_wake);
    while (!request->done) pthread_cond_wait(&spawner_answered, &spawner_lock);
    pthread_mutex_unlock(&spawner_lock);
    pthread_mutex_unlock(&spawner_callers);
    return request->result;
}

static int spawn_through(int kind, pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    if (spawner_running && is_engine_helper(path) && !pthread_equal(pthread_self(), spawner)) {
        spawn_request request = {kind, pid, path, actions, attributes, argv, envp, -1, 0, 0};
        return hand_to_spawner(&request);
    }
    spawn_function spawn = real_function(kind == 0 ? "posix_spawn" : "posix_spawnp");
    return spawn ? spawn(pid, path, actions, attributes, argv, envp) : ENOSYS;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    return spawn_through(0, pid, path, actions, attributes, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    return spawn_through(1, pid, file, actions, attributes, argv, envp);
}

void ph_confine_children(unsigned long long keep) {
    children_keep = keep;
    children_confined = 1;
    if (spawner_running) return;
    if (pthread_create(&spawner, NULL, spawner_main, NULL) == 0) spawner_running = 1;
}

int ph_jail_children(int namespace_fd) {
    children_namespace = namespace_fd;
    if (!spawner_running) return 0;
    spawn_request request = {2, NULL, NULL, NULL, NULL, NULL, NULL, namespace_fd, 0, 0};
    return hand_to_spawner(&request);
}

int ph_narrow_this_thread(unsigned long long keep) {
    return narrow_bounding_set(keep) == 0 ? 0 : -errno;
}

int ph_children_confinable(void) {
    // Whether the dynamic linker binds a library's calls to this program's definitions.
    return dlsym(RTLD_DEFAULT, "posix_spawn") == (void *)posix_spawn && dlsym(RTLD_DEFAULT, "execve") == (void *)execve;
}

static gboolean refuse_destination(WebKitDownload *download, gchar *suggested, gpointer data) {
    (void)suggested; (void)data;
    webkit_download_cancel(download);
    return TRUE; // handled: no destination is set, so nothing is created
}

static void refuse_download(WebKitWebContext *context, WebKitDownload *download, gpointer data) {
    (void)context;
    ph_download_refused_fn refused = (ph_download_refused_fn)data;
    // Cancelled at once; should the response still arrive, its destination is refused too.
    webkit_download_set_allow_overwrite(download, FALSE);
    g_signal_connect(download, "decide-destination", G_CALLBACK(refuse_destination), NULL);
    WebKitWebView *view = webkit_download_get_web_view(download);
    WebKitURIRequest *request = webkit_download_get_request(download);
    const char *uri = request ? webkit_uri_request_get_uri(request) : NULL;
    if (view && uri) refused(view, uri);
    webkit_download_cancel(download);
}

void ph_web_context_refuse_downloads(WebKitWebContext *context, ph_download_refused_fn refused) {
    g_signal_connect(context, "download-started", G_CALLBACK(refuse_download), (gpointer)refused);
}

void ph_set_prefer_dark(int dark) {
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark ? TRUE : FALSE, NULL);
}

static void (*display_lost_fn)(void);

static int display_lost(Display *display) {
    (void)display;
    if (display_lost_fn) display_lost_fn();
    _exit(70); // Xlib exits if the handler returns; GTK's own handler exits with 1 and says little
}

void ph_on_display_lost(void (*fn)(void)) {
    display_lost_fn = fn;
    XSetIOErrorHandler(display_lost);
}

int ph_pivot_root(const char *new_root, const char *put_old) {
    return (int)syscall(SYS_pivot_root, new_root, put_old);
}

int ph_unshare_mounts(void) {
    return unshare(CLONE_NEWNS | CLONE_FS);
}

// The new mount API's constants (linux/mount.h, which clashes with glibc's sys/mount.h).
#define PH_OPEN_TREE_CLONE 1
#define PH_AT_RECURSIVE 0x8000
#define PH_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define PH_MOUNT_ATTR_RDONLY 0x1
#define PH_MOUNT_ATTR_NOSUID 0x2
#define PH_MOUNT_ATTR_NODEV 0x4

struct ph_mount_attr {
    unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

int ph_detached_read_only_tree(const char *path) {
    int tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, PH_OPEN_TREE_CLONE | PH_AT_RECURSIVE | O_CLOEXEC);
    if (tree < 0) return -1;
    struct ph_mount_attr attr = {PH_MOUNT_ATTR_RDONLY | PH_MOUNT_ATTR_NOSUID | PH_MOUNT_ATTR_NODEV, 0, 0, 0};
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | PH_AT_RECURSIVE, &attr, sizeof attr) != 0) {
        int saved = errno;
        close(tree);
        errno = saved;
        return -1;
    }
    return tree;
}

int ph_attach_tree(int tree, const char *target) {
    return (int)syscall(SYS_move_mount, tree, "", AT_FDCWD, target, PH_MOVE_MOUNT_F_EMPTY_PATH);
}
