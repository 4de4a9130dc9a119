// An EGL vendor library for GLVND (Debian's libEGL.so.1) that offers no GL at all: a display that
// initialises, no configs, and no contexts or surfaces.
//
// pageheight's web processes draw pages in software (hardware acceleration off), yet WebKit opens
// an EGL display as each one shows its first page and aborts if there is none. Mesa's EGL, the
// only one Debian has, loads its driver and LLVM for it (into every web process, mostly private
// relocations that nothing gives back). With this vendor the display opens, every request
// for a context fails as if the machine had no GPU, and WebKit goes on drawing in software; WebGL
// is unavailable (`getContext("webgl")` returns null).
//
// Loaded by GLVND through a JSON file named by __EGL_VENDOR_LIBRARY_FILENAMES (see
// `DriverlessEGL`). Every function is the vendor's own: nothing here calls into EGL.

#include <glvnd/libeglabi.h>
#include <string.h>

static int display_storage;
#define THE_DISPLAY ((EGLDisplay)&display_storage)

static __thread EGLint last_error = EGL_SUCCESS;

static EGLBoolean fail(EGLint error) {
    last_error = error;
    return EGL_FALSE;
}

static EGLBoolean is_ours(EGLDisplay display) {
    if (display == THE_DISPLAY) return EGL_TRUE;
    last_error = EGL_BAD_DISPLAY;
    return EGL_FALSE;
}

// Every platform gets the one display: WebKit asks for a surfaceless one (Mesa's platform),
// others may ask for X11's or the default.
static EGLDisplay get_platform_display(EGLenum platform, void *native, const EGLAttrib *attributes) {
    (void)platform; (void)native; (void)attributes;
    return THE_DISPLAY;
}

static EGLBoolean supports_api(EGLenum api) {
    return api == EGL_OPENGL_ES_API || api == EGL_OPENGL_API;
}

static const char *vendor_string(int name) {
    if (name != __EGL_VENDOR_STRING_PLATFORM_EXTENSIONS) return NULL;
    return "EGL_EXT_platform_base EGL_KHR_platform_base EGL_MESA_platform_surfaceless "
           "EGL_KHR_platform_x11 EGL_EXT_platform_x11 EGL_KHR_platform_gbm EGL_MESA_platform_gbm";
}

static EGLBoolean initialize(EGLDisplay display, EGLint *major, EGLint *minor) {
    if (!is_ours(display)) return EGL_FALSE;
    if (major) *major = 1;
    if (minor) *minor = 5;
    return EGL_TRUE;
}

static EGLBoolean terminate(EGLDisplay display) { return is_ours(display); }

static const char *query_string(EGLDisplay display, EGLint name) {
    if (!is_ours(display)) return NULL;
    switch (name) {
    case EGL_VENDOR: return "pageheight (no GL)";
    case EGL_VERSION: return "1.5 pageheight";
    case EGL_EXTENSIONS: return "";
    case EGL_CLIENT_APIS: return "OpenGL OpenGL_ES";
    default: fail(EGL_BAD_PARAMETER); return NULL;
    }
}

static EGLBoolean get_configs(EGLDisplay display, EGLConfig *configs, EGLint size, EGLint *count) {
    (void)configs; (void)size;
    if (!is_ours(display)) return EGL_FALSE;
    if (!count) return fail(EGL_BAD_PARAMETER);
    *count = 0;
    return EGL_TRUE;
}

static EGLBoolean choose_config(EGLDisplay display, const EGLint *attributes, EGLConfig *configs, EGLint size,
                                EGLint *count) {
    (void)attributes;
    return get_configs(display, configs, size, count);
}

// With no configs, everything that takes one, a context or a surface fails as the EGL
// specification says it must for a handle that does not exist.
static EGLBoolean get_config_attrib(EGLDisplay d, EGLConfig c, EGLint a, EGLint *v) {
    (void)d; (void)c; (void)a; (void)v; return fail(EGL_BAD_CONFIG);
}
static EGLContext create_context(EGLDisplay d, EGLConfig c, EGLContext s, const EGLint *a) {
    (void)d; (void)c; (void)s; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_CONTEXT;
}
static EGLBoolean destroy_context(EGLDisplay d, EGLContext c) { (void)d; (void)c; return fail(EGL_BAD_CONTEXT); }
static EGLBoolean make_current(EGLDisplay d, EGLSurface draw, EGLSurface read, EGLContext c) {
    (void)d;
    if (c == EGL_NO_CONTEXT && draw == EGL_NO_SURFACE && read == EGL_NO_SURFACE) return EGL_TRUE; // releasing
    return fail(EGL_BAD_CONTEXT);
}
static EGLBoolean query_context(EGLDisplay d, EGLContext c, EGLint a, EGLint *v) {
    (void)d; (void)c; (void)a; (void)v; return fail(EGL_BAD_CONTEXT);
}
static EGLSurface create_window_surface(EGLDisplay d, EGLConfig c, EGLNativeWindowType w, const EGLint *a) {
    (void)d; (void)c; (void)w; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLSurface create_pbuffer_surface(EGLDisplay d, EGLConfig c, const EGLint *a) {
    (void)d; (void)c; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLSurface create_pixmap_surface(EGLDisplay d, EGLConfig c, EGLNativePixmapType p, const EGLint *a) {
    (void)d; (void)c; (void)p; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLSurface create_platform_window_surface(EGLDisplay d, EGLConfig c, void *w, const EGLAttrib *a) {
    (void)d; (void)c; (void)w; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLSurface create_platform_pixmap_surface(EGLDisplay d, EGLConfig c, void *p, const EGLAttrib *a) {
    (void)d; (void)c; (void)p; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLSurface create_pbuffer_from_client_buffer(EGLDisplay d, EGLenum t, EGLClientBuffer b, EGLConfig c,
                                                    const EGLint *a) {
    (void)d; (void)t; (void)b; (void)c; (void)a; fail(EGL_BAD_CONFIG); return EGL_NO_SURFACE;
}
static EGLBoolean destroy_surface(EGLDisplay d, EGLSurface s) { (void)d; (void)s; return fail(EGL_BAD_SURFACE); }
static EGLBoolean query_surface(EGLDisplay d, EGLSurface s, EGLint a, EGLint *v) {
    (void)d; (void)s; (void)a; (void)v; return fail(EGL_BAD_SURFACE);
}
static EGLBoolean surface_attrib(EGLDisplay d, EGLSurface s, EGLint a, EGLint v) {
    (void)d; (void)s; (void)a; (void)v; return fail(EGL_BAD_SURFACE);
}
static EGLBoolean bind_tex_image(EGLDisplay d, EGLSurface s, EGLint b) { (void)d; (void)s; (void)b; return fail(EGL_BAD_SURFACE); }
static EGLBoolean release_tex_image(EGLDisplay d, EGLSurface s, EGLint b) { (void)d; (void)s; (void)b; return fail(EGL_BAD_SURFACE); }
static EGLBoolean swap_buffers(EGLDisplay d, EGLSurface s) { (void)d; (void)s; return fail(EGL_BAD_SURFACE); }
static EGLBoolean copy_buffers(EGLDisplay d, EGLSurface s, EGLNativePixmapType p) {
    (void)d; (void)s; (void)p; return fail(EGL_BAD_SURFACE);
}
static EGLBoolean swap_interval(EGLDisplay d, EGLint i) { (void)d; (void)i; return fail(EGL_BAD_CONTEXT); }
static EGLBoolean wait_client(void) { return EGL_TRUE; }
static EGLBoolean wait_gl(void) { return EGL_TRUE; }
static EGLBoolean wait_native(EGLint engine) { (void)engine; return EGL_TRUE; }
static EGLBoolean release_thread(void) { return EGL_TRUE; }
static EGLint get_error(void) {
    EGLint error = last_error;
    last_error = EGL_SUCCESS;
    return error;
}
static EGLSync create_sync(EGLDisplay d, EGLenum t, const EGLAttrib *a) {
    (void)d; (void)t; (void)a; fail(EGL_BAD_PARAMETER); return EGL_NO_SYNC;
}
static EGLBoolean destroy_sync(EGLDisplay d, EGLSync s) { (void)d; (void)s; return fail(EGL_BAD_PARAMETER); }
static EGLint client_wait_sync(EGLDisplay d, EGLSync s, EGLint f, EGLTime t) {
    (void)d; (void)s; (void)f; (void)t; fail(EGL_BAD_PARAMETER); return EGL_FALSE;
}
static EGLBoolean get_sync_attrib(EGLDisplay d, EGLSync s, EGLint a, EGLAttrib *v) {
    (void)d; (void)s; (void)a; (void)v; return fail(EGL_BAD_PARAMETER);
}
static EGLBoolean wait_sync(EGLDisplay d, EGLSync s, EGLint f) { (void)d; (void)s; (void)f; return fail(EGL_BAD_PARAMETER); }
static EGLImage create_image(EGLDisplay d, EGLContext c, EGLenum t, EGLClientBuffer b, const EGLAttrib *a) {
    (void)d; (void)c; (void)t; (void)b; (void)a; fail(EGL_BAD_PARAMETER); return EGL_NO_IMAGE;
}
static EGLBoolean destroy_image(EGLDisplay d, EGLImage i) { (void)d; (void)i; return fail(EGL_BAD_PARAMETER); }

// The EGL 1.5 core functions GLVND dispatches to a vendor. Extensions: none (GLVND returns NULL
// from eglGetProcAddress for them).
static const struct {
    const char *name;
    void *function;
} core_functions[] = {
    {"eglInitialize", (void *)initialize},
    {"eglTerminate", (void *)terminate},
    {"eglQueryString", (void *)query_string},
    {"eglGetConfigs", (void *)get_configs},
    {"eglChooseConfig", (void *)choose_config},
    {"eglGetConfigAttrib", (void *)get_config_attrib},
    {"eglCreateContext", (void *)create_context},
    {"eglDestroyContext", (void *)destroy_context},
    {"eglMakeCurrent", (void *)make_current},
    {"eglQueryContext", (void *)query_context},
    {"eglCreateWindowSurface", (void *)create_window_surface},
    {"eglCreatePbufferSurface", (void *)create_pbuffer_surface},
    {"eglCreatePixmapSurface", (void *)create_pixmap_surface},
    {"eglCreatePlatformWindowSurface", (void *)create_platform_window_surface},
    {"eglCreatePlatformPixmapSurface", (void *)create_platform_pixmap_surface},
    {"eglCreatePbufferFromClientBuffer", (void *)create_pbuffer_from_client_buffer},
    {"eglDestroySurface", (void *)destroy_surface},
    {"eglQuerySurface", (void *)query_surface},
    {"eglSurfaceAttrib", (void *)surface_attrib},
    {"eglBindTexImage", (void *)bind_tex_image},
    {"eglReleaseTexImage", (void *)release_tex_image},
    {"eglSwapBuffers", (void *)swap_buffers},
    {"eglCopyBuffers", (void *)copy_buffers},
    {"eglSwapInterval", (void *)swap_interval},
    {"eglWaitClient", (void *)wait_client},
    {"eglWaitGL", (void *)wait_gl},
    {"eglWaitNative", (void *)wait_native},
    {"eglReleaseThread", (void *)release_thread},
    {"eglGetError", (void *)get_error},
    {"eglCreateSync", (void *)create_sync},
    {"eglDestroySync", (void *)destroy_sync},
    {"eglClientWaitSync", (void *)client_wait_sync},
    {"eglGetSyncAttrib", (void *)get_sync_attrib},
    {"eglWaitSync", (void *)wait_sync},
    {"eglCreateImage", (void *)create_image},
    {"eglDestroyImage", (void *)destroy_image},
};

static void *get_proc_address(const char *name) {
    for (size_t i = 0; i < sizeof core_functions / sizeof core_functions[0]; i++) {
        if (strcmp(core_functions[i].name, name) == 0) return core_functions[i].function;
    }
    return NULL;
}

static void *get_dispatch_address(const char *name) { (void)name; return NULL; }
static void set_dispatch_index(const char *name, int index) { (void)name; (void)index; }

// GLVND's entry point: called once, when libEGL loads the vendor.
__attribute__((visibility("default")))
EGLBoolean __egl_Main(uint32_t version, const __EGLapiExports *exports, __EGLvendorInfo *vendor,
                      __EGLapiImports *imports) {
    (void)exports; (void)vendor;
    if (EGL_VENDOR_ABI_GET_MAJOR_VERSION(version) != EGL_VENDOR_ABI_MAJOR_VERSION) return EGL_FALSE;
    memset(imports, 0, sizeof *imports);
    imports->getPlatformDisplay = get_platform_display;
    imports->getSupportsAPI = supports_api;
    imports->getVendorString = vendor_string;
    imports->getProcAddress = get_proc_address;
    imports->getDispatchAddress = get_dispatch_address;
    imports->setDispatchIndex = set_dispatch_index;
    return EGL_TRUE;
}
