" crisp.vim - Vim syntax for Crisp, a Lisp for GPU kernels.
" Highlights definitions, control and loop forms, types, keywords
" (:global), the type part of name:type annotations, +constants+, strings,
" numbers and comments.  The form lists follow editors/forms.txt.
" Install: copy editors/vim/{syntax,ftdetect,ftplugin} into ~/.vim/.
if exists("b:current_syntax")
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

syn iskeyword @,48-57,_,192-255,!,?,*,+,-,<,>,=,~,%,/,&

syn keyword crispDefine def-kernel def-kernel-exact def-function def-grid-function def-type
syn keyword crispDefine def-struct def-enumeration def-derived-type set-derived def-const
syn keyword crispDefine def-constant def-const-vec def-parameter def-setter def-constraint
syn keyword crispDefine def-orchestration defmacro with-template-type with-struct-accessors

syn keyword crispControl let let* progn if when unless cond return result let-maybe or-else
syn keyword crispControl multiple-value-bind funcall declare set! inc! dec!
syn keyword crispRepeat dotimes dotimes+ dec-times dec-times+ dec-times-by-half dec-times-by-half+
syn keyword crispRepeat dec-times-by-factor dec-times-by-factor+ do-times-by-doubling
syn keyword crispRepeat do-times-by-multiply do-power-step dec-power-step in-each-thread
syn keyword crispRepeat in-each-thread-in-group loop-grid-stride loop-grid-stride-linear
syn keyword crispRepeat loop-vector-stride loop-soa-stride
syn keyword crispControl when-thread-is abs-when-thread-is when-thread-in-group-is when-group-is
syn keyword crispControl when-global-linear-id-is when-local-linear-id-is local-barrier mem-fence
syn keyword crispControl c-t-assert c-t-output r-t-assert r-t-output target-has device-has

syn keyword crispType vector-type tensor-view-type soa-vector-type const-vec-type identity-tensor-type
syn keyword crispType maybe type-signature-of return-type-of
syn keyword crispType bool char uchar short ushort int uint long ulong half float double voidp
syn match crispType "\<\(u\=char\|u\=short\|u\=int\|u\=long\|half\|float\|double\)\(2\|3\|4\|8\|16\)\>"

" name:type - the type after the colon (a name, or the head of a list)
syn match crispAnnotation ":(\=[A-Za-z_][A-Za-z0-9_+*!?-]*" contained contains=crispType
syn match crispAnnotated "\<[A-Za-z_+*][A-Za-z0-9_+*!?-]*:(\=[A-Za-z_][A-Za-z0-9_+*!?-]*" contains=crispAnnotation
syn match crispKeyword "\(^\|[ \t(]\)\zs:[A-Za-z0-9_+*!?-]\+"
syn match crispConstant "\<+[A-Za-z0-9_-]\++\>"
syn match crispFunction "#'[A-Za-z0-9_+*!?-]\+"
syn match crispNumber "\<-\=[0-9]\+\(\.[0-9]*\)\=\([eE][-+]\=[0-9]\+\)\=\>"
syn match crispNumber "#[xX][0-9a-fA-F]\+\|#[bB][01]\+"
syn region crispString start=+"+ skip=+\\\\\|\\"+ end=+"+
syn match crispComment ";.*$" contains=@Spell
syn region crispComment start="#|" end="|#" contains=@Spell

hi def link crispDefine Define
hi def link crispControl Statement
hi def link crispRepeat Repeat
hi def link crispType Type
hi def link crispAnnotation Type
hi def link crispKeyword Constant
hi def link crispConstant Constant
hi def link crispFunction Function
hi def link crispNumber Number
hi def link crispString String
hi def link crispComment Comment

let b:current_syntax = "crisp"
let &cpo = s:cpo_save
unlet s:cpo_save
