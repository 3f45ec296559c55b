console.log(add(1, 2))
