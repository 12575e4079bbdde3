" crisp.vim - .crisp files are Crisp (editors/vim/syntax/crisp.vim).
autocmd BufRead,BufNewFile *.crisp setfiletype crisp
