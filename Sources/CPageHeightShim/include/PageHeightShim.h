#ifndef PAGEHEIGHT_SHIM_H
#define PAGEHEIGHT_SHIM_H

// The C boundary of pageheight: only what Swift cannot express by itself.
// Every symbol carries the `ph_` prefix and says why it exists, so it can go
// once Swift imports the underlying thing directly.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <sys/types.h>
// Why: Swift's Glibc module leaves out malloc.h (mallopt, malloc_trim: the engine's memory upkeep).
#include <malloc.h>

// Why: g_object_new is varargs; a view needs its context, its content manager and is-ephemeral.
// The view is ephemeral: its website data (cookies, storage, caches) live in a store of its own, in memory.
WebKitWebView *ph_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager);

// Why: memory-pressure-settings is a construct-only property: g_object_new (varargs) is the only way.
// A context whose web processes are killed above `limit_mb` MB, checked every `poll_seconds`. Its own
// data manager keeps its files under `directory`; its views, all ephemeral, never use it for page data.
WebKitWebContext *ph_web_context_new(guint limit_mb, double poll_seconds, const char *directory);

// Why: g_signal_connect is a macro taking an untyped GCallback; these keep the types.
typedef void (*ph_load_changed_fn)(WebKitWebView *view, WebKitLoadEvent event, gpointer data);
typedef gboolean (*ph_load_failed_fn)(WebKitWebView *view, WebKitLoadEvent event, const char *uri, GError *error, gpointer data);
typedef void (*ph_process_terminated_fn)(WebKitWebView *view, WebKitWebProcessTerminationReason reason, gpointer data);
typedef void (*ph_script_message_fn)(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);
// Why: the decision must be cast to a navigation decision (a GObject cast macro) to read its URI.
// Calls `fn` with the target URI of every navigation action; the decision itself is left to WebKit.
typedef void (*ph_navigation_fn)(const char *uri, gpointer data);
gulong ph_connect_navigation_targets(WebKitWebView *view, ph_navigation_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_load_changed(WebKitWebView *view, ph_load_changed_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_load_failed(WebKitWebView *view, ph_load_failed_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_process_terminated(WebKitWebView *view, ph_process_terminated_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_script_message(WebKitUserContentManager *manager, const char *name, ph_script_message_fn fn, gpointer data, GClosureNotify destroy);

// Why: soup_server_new is varargs (g_object_new). An HTTP server (`pageheight serve`) that names
// itself `server_header` in every response; it serves on the thread-default main context of the
// thread that calls soup_server_listen.
SoupServer *ph_server_new(const char *server_header);

// Why: g_signal_connect is a macro taking an untyped GCallback; these keep the types.
// "finished": the message is done, answered or its connection closed (it is then no longer paused).
// "got-chunk": a piece of a request body arrived (a chunked body has no Content-Length to check first).
typedef void (*ph_server_message_fn)(SoupServerMessage *msg, gpointer data);
typedef void (*ph_server_chunk_fn)(SoupServerMessage *msg, GBytes *chunk, gpointer data);
gulong ph_connect_server_message_finished(SoupServerMessage *msg, ph_server_message_fn fn, gpointer data,
                                          GClosureNotify destroy);
gulong ph_connect_server_message_got_chunk(SoupServerMessage *msg, ph_server_chunk_fn fn, gpointer data,
                                           GClosureNotify destroy);

// Why: Xlib's I/O error handler is a C function that must not return; GTK's says only "Fatal IO
// error" and exits with 1. Call after gtk_init: `fn` runs, then the process exits with 70.
void ph_on_display_lost(void (*fn)(void));

// Why: g_signal_connect is a macro taking an untyped GCallback; these keep the types.
// A view's requests (`RequestLedger`): "resource-load-started" on the view, then each request's own
// "finished" and "failed".
typedef void (*ph_resource_started_fn)(WebKitWebView *view, WebKitWebResource *resource, WebKitURIRequest *request,
                                       gpointer data);
typedef void (*ph_resource_finished_fn)(WebKitWebResource *resource, gpointer data);
typedef void (*ph_resource_failed_fn)(WebKitWebResource *resource, GError *error, gpointer data);
gulong ph_connect_resource_load_started(WebKitWebView *view, ph_resource_started_fn fn, gpointer data,
                                        GClosureNotify destroy);
gulong ph_connect_resource_finished(WebKitWebResource *resource, ph_resource_finished_fn fn, gpointer data,
                                    GClosureNotify destroy);
gulong ph_connect_resource_failed(WebKitWebResource *resource, ph_resource_failed_fn fn, gpointer data,
                                  GClosureNotify destroy);

// Why: g_signal_connect is a macro, and a download's destination is refused in its own signal.
// Cancels every download of `context`'s views as it starts (`<a download>`, an attachment, a
// response WebKit cannot show), so that no page writes a file; `refused` is told the view and URI
// of each (during the call), which Swift notes among the view's failed subresources.
typedef void (*ph_download_refused_fn)(WebKitWebView *view, const char *uri);
void ph_web_context_refuse_downloads(WebKitWebContext *context, ph_download_refused_fn refused);

// Why: g_object_set is variadic. Sets GTK's `gtk-application-prefer-dark-theme`, which WebKitGTK
// answers `prefers-color-scheme` from, for every view of the process, live.
void ph_set_prefer_dark(int dark);

// Why: g_signal_connect is a macro taking an untyped GCallback; these keep the types. A view's
// dialogs, popups and print requests, which `PageDialogs` answers.
typedef gboolean (*ph_script_dialog_fn)(WebKitWebView *view, WebKitScriptDialog *dialog, gpointer data);
typedef GtkWidget *(*ph_create_fn)(WebKitWebView *view, WebKitNavigationAction *action, gpointer data);
typedef gboolean (*ph_print_fn)(WebKitWebView *view, WebKitPrintOperation *operation, gpointer data);
gulong ph_connect_script_dialog(WebKitWebView *view, ph_script_dialog_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_create(WebKitWebView *view, ph_create_fn fn, gpointer data, GClosureNotify destroy);
gulong ph_connect_print(WebKitWebView *view, ph_print_fn fn, gpointer data, GClosureNotify destroy);

// Why: the _finish result is a JSCValue that must be turned into text and freed, and errors unpacked.
// `json` is a string result's own text, any other result as JSON; `json` and `error` are owned by the callee (freed after the callback returns); exactly one is non-NULL.
typedef void (*ph_evaluated_fn)(const char *json, const char *error, gpointer data);
void ph_evaluate(WebKitWebView *view, const char *script, const char *world_name, GCancellable *cancellable,
                 ph_evaluated_fn fn, gpointer data);

// Why: the snapshot arrives as a cairo surface through an async _finish; this writes it as PNG.
typedef void (*ph_done_fn)(const char *error, gpointer data);
void ph_snapshot_png(WebKitWebView *view, const char *path, GCancellable *cancellable, ph_done_fn fn, gpointer data);

// Why: the clear's result arrives through an async _finish.
// Forgets the data of `types` in `view`'s own data store.
void ph_web_view_clear_website_data(WebKitWebView *view, WebKitWebsiteDataTypes types, ph_done_fn fn, gpointer data);

// Why: a SoupCookie is built through several setters, and the add is an async call whose _finish
// needs a GObject source. Adds a cookie to the view's own data store; `fn` gets NULL or the error.
// `domain` with a leading dot covers subdomains; `expires` 0 for a session cookie; `same_site_lax`
// marks it SameSite=Lax (not sent with another site's subresource requests), else none is set.
void ph_web_view_add_cookie(WebKitWebView *view, const char *name, const char *value, const char *domain,
                            const char *path, gboolean secure, gboolean http_only, gint64 expires,
                            gboolean same_site_lax, ph_done_fn fn, gpointer data);

// Why: a request's header fields are a SoupMessageHeaders reached through the request. Loads
// `uri` with `count` header fields (names and values) added to the main document's request.
void ph_web_view_load_with_headers(WebKitWebView *view, const char *uri, const char *const *names,
                                   const char *const *values, int count);

// Why: the main resource's bytes arrive through an async _finish (used for the text-length fallback).
typedef void (*ph_data_fn)(const guchar *bytes, gsize length, const char *error, gpointer data);
void ph_main_resource_data(WebKitWebView *view, GCancellable *cancellable, ph_data_fn fn, gpointer data);

// Why: the ignore-hosts list is a NULL-terminated C string array.
// Sends every request of `context` but loopback (localhost, 127.0.0.0/8, ::1) through `proxy_uri`.
void ph_web_context_route_through_proxy(WebKitWebContext *context, const char *proxy_uri);

// Why: a content filter is compiled by an async save whose _finish returns it (GAsyncReadyCallback
// with a GObject source). Compiles `json` (content-blocker rules) into a store in `directory`;
// `done` gets a new reference, or NULL and the reason (valid during the call), on the main context.
typedef void (*PhFilterSaved)(WebKitUserContentFilter *filter, const char *error, void *data);
void ph_save_content_filter(const char *directory, const char *identifier, const char *json, PhFilterSaved done,
                            void *data);

// Why: g_signal_connect is a macro. The off-screen window must be shown (WebKit only runs
// ResizeObserver and animation frames for a visible view), but nobody looks at its pixels: this
// stops GTK from copying the view into the window's surface on every frame, and freezes the
// window's updates so GDK no longer allocates a paint buffer for them. Call once shown.
void ph_window_skip_drawing(GtkWidget *window);

// Why: a GLib timeout wakes the loop in whole milliseconds, rounded up (poll's timeout), so a
// settle check due at a time fired up to a millisecond after it. This source wakes through a
// timerfd instead, to the microsecond. Calls `fn` (with `data`) once, `microseconds` from now,
// on the default main context; `destroy` releases `data`. Returns the source id (g_source_remove
// cancels it). Falls back to a GLib timeout if no timerfd can be made.
guint ph_timeout_add_precise(gint64 microseconds, GSourceFunc fn, gpointer data, GDestroyNotify destroy);

// Why: prctl(PR_SET_PDEATHSIG) is varargs and must run between fork and exec, which Swift cannot do.
// Starts argv[0] (searched in PATH) with stdout on `stdout_fd` and stderr on `stderr_fd` (-1: inherit),
// in its own process group, sent SIGTERM when the calling thread dies. Returns the pid, or -1 with errno set.
pid_t ph_spawn_tied(char *const argv[], int stdout_fd, int stderr_fd);

// Why: the same as ph_spawn_tied (prctl between fork and exec), for a process of this program
// that runs the engine for its supervisor. Starts `path` with `argv` and exactly `envp`, standard
// input on `stdin_fd`, standard output on `stdout_fd`, descriptor 3 on `message_fd` (standard error
// inherited), in its own process group, sent SIGTERM when the calling thread dies. Returns the pid,
// or -1 with errno set.
pid_t ph_spawn_engine_process(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                              int message_fd);

// Why: GLVND reads its EGL vendor list from the environment once per process, at its first call.
// Makes this process's EGL find no driver, so the UI process never loads Mesa (and its LLVM), while
// the web processes it starts later, with the environment restored, load it as usual.
// Does nothing when libEGL is not loaded.
void ph_ui_process_without_egl(void);

// Why: pidfd_open and process_madvise are GNU extensions that Swift's Glibc module does not export.
// Asks the kernel to reclaim the pages of process `pid` in `count` address ranges
// (MADV_PAGEOUT): clean file pages are dropped and read back if touched again. Returns the bytes
// advised, or -errno (-EPERM without CAP_SYS_NICE, -ESRCH once the process is gone).
long ph_page_out(pid_t pid, const uintptr_t *starts, const size_t *lengths, int count);

// Why: SCHED_RESET_ON_FORK is a flag of sched_setscheduler that Swift's Glibc module does not export.
// Gives the calling thread the nice value `nice` (negative: ahead of the web processes for a core)
// while every process and thread it starts from now on begins at nice 0 again. Returns 0, or
// -errno (-EACCES or -EPERM without CAP_SYS_NICE: the thread keeps its priority).
int ph_prioritize_thread(int nice);

// Why: the processes WebKit starts (its network process, bubblewrap and the web processes in it,
// its D-Bus proxy) are started by GLib (posix_spawn, or fork and exec), which pageheight cannot
// give a hook of its own; only the calls GLib makes by name reach functions this program defines
// (`posix_spawn`, `posix_spawnp`, `execve`, exported by the executable). From this call on, each
// of those processes starts with every capability whose bit is clear in `keep` (bit n:
// capability n, as in /proc/PID/status) out of its bounding set: no process it starts can hold
// one, whatever its user. Its posix_spawn is made by a thread of the shim's (the spawner), whose
// bounding set that is. No other process, and no other thread of this process, changes.
void ph_confine_children(unsigned long long keep);

// Why: as `ph_confine_children`. From this call on, WebKit's processes start in the mount
// namespace `namespace_fd` (a descriptor of /proc/.../ns/mnt: the file jail's, `FileJail`), their
// root and working directory its root. Returns 0, or the spawner's errno entering it.
int ph_jail_children(int namespace_fd);

// Why: whether this program's `posix_spawn` and `execve` are the ones the libraries call (the
// executable exports them: `-Xlinker --export-dynamic-symbol=...`); without that, WebKit's
// processes cannot be confined. 1 or 0.
int ph_children_confinable(void);

// Why: prctl is varargs, which Swift does not import. Where the program cannot confine WebKit's
// processes alone (`ph_children_confinable` is 0), takes the capabilities clear in `keep` out of
// the calling thread's bounding set, which the threads and processes it starts inherit. Returns
// 0, or -errno (-EPERM without CAP_SETPCAP).
int ph_narrow_this_thread(unsigned long long keep);

// Why: WebKit reads `Malloc=1` before main, so only a new start of the program can have it; the
// decision is the program's (main.swift). Starts the program again at once (execv of its own
// executable, `argv` as given) with `Malloc=1` in its environment, taken out again by the second
// start before any other process starts. Returns (and the start goes on with WebKit's allocator)
// when `Malloc` is already set, by the user or because this is the second start, or on failure.
void ph_restart_with_system_malloc(char **argv);

// The variable that marks a start made for the C library's malloc: set beside `Malloc=1`, it makes
// that start take both out of its environment before any other process starts (its constructor).
// A process that starts the program with them itself (the engine's process) sets both.
#define PH_SYSTEM_MALLOC_MARK "PAGEHEIGHT_SYSTEM_MALLOC"

// Why: pivot_root(2) has no glibc wrapper, and syscall(2) is variadic, which Swift cannot call.
// Used by `FileJail` on the engine's thread. Returns 0, or -1 with errno set.
int ph_pivot_root(const char *new_root, const char *put_old);

// Why: unshare(2) and its CLONE_ flags need _GNU_SOURCE, which Swift's Glibc module does not
// define. Gives the calling thread a mount namespace and a file-system context of its own
// (`FileJail`). Returns 0, or -1 with errno set.
int ph_unshare_mounts(void);

// Why: open_tree(2) and mount_setattr(2) have no wrapper in Debian 12's glibc headers Swift sees,
// and syscall(2) is variadic. A detached copy of the folder `path` of the calling thread's mount
// namespace, read-only, without set-user-ID files or devices, as a descriptor (close-on-exec) that
// `ph_attach_tree` mounts in another thread's namespace (`FileJail.PageFolders`). Returns the
// descriptor, or -1 with errno set.
int ph_detached_read_only_tree(const char *path);

// Why: move_mount(2) has no wrapper Swift sees, and syscall(2) is variadic. Mounts the detached
// tree `tree` (from `ph_detached_read_only_tree`) on the folder `target` of the calling thread's
// mount namespace. Returns 0, or -1 with errno set; `tree` stays the caller's to close.
int ph_attach_tree(int tree, const char *target);

#endif
