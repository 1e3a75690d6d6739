/* The flame graph's script and style sheet (render/flame.js, render/flame.css) inside
 * the binary, as NUL-terminated strings lf_flame_js and lf_flame_css (render/assets.h). */
	.section .rodata
	.global lf_flame_js
	.type lf_flame_js, @object
lf_flame_js:
	.incbin "render/flame.js"
	.byte 0
	.size lf_flame_js, . - lf_flame_js

	.global lf_flame_css
	.type lf_flame_css, @object
lf_flame_css:
	.incbin "render/flame.css"
	.byte 0
	.size lf_flame_css, . - lf_flame_css

	.section .note.GNU-stack, "", @progbits
